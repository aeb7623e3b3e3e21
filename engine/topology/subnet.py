"""Every InfiniBand fabric needs a subnet manager (issue 38).

"Each subnet needs one subnet manager to discover, activate and manage the subnet", running in a switch
(system based) or on a node of the fabric (host based) (QM97x0 manual, Software Management). A QM9700 has
one on board; a QM9790 or a Quantum-X800 Q3400 has none (catalog `subnet_manager`). An InfiniBand fabric
whose switches carry no on-board SM and that has no fabric-manager (UFM) appliance is warned about, naming
the switch model and the settings that fix it; Ethernet fabrics have no subnet manager.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.catalog import Catalog
    from engine.spec import DesignSpec
    from engine.topology.compute import ComputePlan


def subnet_manager_warnings(spec: DesignSpec, plan: ComputePlan, catalog: Catalog) -> list[str]:
    out: list[str] = []
    fabrics = []
    if spec.compute.technology == "infiniband":
        models = {plan.leaf.key, plan.spine.key} | ({plan.core.key} if plan.tiers == 3 else set())
        fabrics.append(("compute fabric", "compute_fabric", models, spec.compute.fabric_managers))
    if spec.storage.enabled and spec.storage.technology == "infiniband":
        fabrics.append(("storage fabric", "storage_fabric", {spec.storage.switch}, 0))
    for name, path, models, managers in fabrics:
        if managers > 0:
            continue
        switches = [catalog.switches.get(m) for m in sorted(models)]
        if any(sw is not None and sw.subnet_manager for sw in switches):
            continue
        names = ", ".join(sw.name if sw is not None else m for sw, m in zip(switches, sorted(models)))
        out.append(
            f"{name}: no subnet manager. {names} has no on-board subnet manager and the design has no "
            f"fabric-manager appliance; an InfiniBand subnet does not come up without one. Add UFM appliances "
            f"({path}.fabric_managers with reserved_node_slots) or run a host-based subnet manager (UFM or "
            "OpenSM) on a management server attached to the fabric"
            if path == "compute_fabric"
            else f"{name}: no subnet manager. {names} has no on-board subnet manager; run UFM or OpenSM on a "
            "node attached to the storage fabric"
        )
    return out
