"""Builders for the physical-layer tests: cages, policies, requests."""

from engine.physical import CageEnd, MediaPolicy, MediaRequest


def policy(**tiers):
    """MediaPolicy with per-tier overrides: policy(leaf_spine={"cabling": "panels"})."""
    return MediaPolicy.from_dict({"tiers": {k.replace("_", "-"): v for k, v in tiers.items()}})


# Cages seen in NVIDIA clusters (reference D1/D2).
DGX_CAGE = CageEnd("server", "osfp", "flat", True, 400, 100)  # DGX H100/B200 twin-port, flat-top
QM9700_CAGE = CageEnd("switch", "osfp", "finned", True, 400, 100)  # air-cooled, finned
LIQUID_SWITCH_CAGE = CageEnd("switch", "osfp", "flat", True, 400, 100)
CX7_OSFP = CageEnd("server", "osfp", "flat", False, 400, 100)
CX7_OSFP_200 = CageEnd("server", "osfp", "flat", False, 200, 100)  # NDR200 on a splitter leg
Q3400_CAGE = CageEnd("switch", "osfp", "finned", True, 800, 200)  # XDR twin-port
CX8_OSFP = CageEnd("server", "osfp", "flat", False, 800, 200)


def req(a, b, run, tier="leaf-spine", aligned=False, tech="infiniband"):
    return MediaRequest(tier, tech, a, b, aligned, run)
