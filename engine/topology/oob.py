"""Out-of-band management: 1G copper from every managed device to an OOB switch in its own rack.

H100-RA p.14: the OOB network carries every BMC, switch management port, PDU and storage
management port on SN2201 switches; it links into the in-band network. Here each rack gets OOB
switches at its top units, and every OOB switch sends one uplink to each of a pair of OOB
aggregation switches (a user-settable model; the reference gives no figure for that layer).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import ceil

from ..catalog import SwitchModel
from ..model import Device, Place, Rack
from .builder import Builder

AGG_UPLINKS = 2  # one to each aggregation switch of a pair, so one failure keeps OOB reachable


def mgmt_ports(d: Device, switches: Mapping[str, SwitchModel], server_oob_ports: tuple[str, ...]) -> tuple[str, ...]:
    if d.role == "server":
        return server_oob_ports
    if d.role in ("leaf", "spine", "core", "oob-agg"):
        sw = switches.get(d.model)
        n = sw.mgmt_ports if sw else 1
        return ("mgmt0",) if n == 1 else tuple(f"mgmt{i}" for i in range(n))
    if d.role in ("ufm", "storage-appliance", "mgmt-server"):
        return ("bmc",)
    if d.role == "pdu":
        return ("net",)
    return ()


def agg_pairs_needed(n_oob_switches: int, oob: SwitchModel, agg: SwitchModel) -> int:
    up_speed = int((oob.uplinks or {}).get("speed_gbps", 100))
    radix = agg.radix(up_speed) or agg.cages
    return max(1, ceil(n_oob_switches / radix))


def oob_switches_per_rack(endpoints: int, oob: SwitchModel) -> int:
    """OOB switches a rack with `endpoints` management ports gets (one at least: its PDUs need one)."""
    return max(1, ceil(endpoints / (oob.radix(1) or oob.cages)))


def endpoints_by_rack(
    devices: list[Device],
    places: list[Place | None],
    switches: Mapping[str, SwitchModel],
    server_oob_ports: tuple[str, ...],
    pdus_per_rack: int,
    racks: list[Rack],
    host_rack: Mapping[int, int],
) -> dict[int, int]:
    """Management ports each OOB-switch rack serves: its own devices' and PDUs' and those of the racks it hosts.

    The aggregation pairs are sized from this before they exist, so it must count what build_oob wires: a network
    rack that hosts the BMCs of several rack-scale systems needs more than one OOB switch."""
    per_kind: dict[tuple[str, str], int] = {}
    counts = {r.idx: 0 for r in racks if r.idx not in host_rack}
    for r in racks:
        counts[host_rack.get(r.idx, r.idx)] += pdus_per_rack  # a PDU has one network port ("net")
    for idx, p in enumerate(places):
        if p is None:
            continue
        d = devices[idx]
        n = per_kind.get((d.role, d.model))
        if n is None:
            n = per_kind[(d.role, d.model)] = len(mgmt_ports(d, switches, server_oob_ports))
        counts[host_rack.get(p.rack, p.rack)] += n
    return counts


def build_oob(
    *,
    b: Builder,
    racks: list[Rack],
    places: list[Place | None],
    oob: SwitchModel,
    agg: SwitchModel,
    aggs: list[int],
    switches: Mapping[str, SwitchModel],
    server_oob_ports: tuple[str, ...],
    pdus_per_rack: int,
    rack_units: int,
    host_rack: dict[int, int] | None = None,
) -> dict:
    """Adds PDUs and OOB switches (top of each rack) and wires them to the given aggregation switches.

    `host_rack` sends a rack's management ports to another rack's OOB switch: a rack-scale system
    (GB200 NVL72) fills its rack and carries its own management ToRs, so its BMC runs to the OOB
    switch of the network rack in its row.
    """
    host_rack = host_rack or {}
    by_rack: dict[int, list[int]] = {}
    for idx, p in enumerate(places):
        if p is not None:
            by_rack.setdefault(p.rack, []).append(idx)
    ports_per_oob = oob.radix(1) or oob.cages
    oob_switches: list[int] = []
    pdus: list[int] = []
    new_places: dict[int, Place] = {}
    by_target: dict[int, list[tuple[int, str]]] = {}
    for rack in racks:
        members = by_rack.get(rack.idx, [])
        rack_pdus = []
        for i in range(pdus_per_rack):
            d = b.device(f"PDU-{rack.id.split('.', 1)[-1]}-{i + 1}", "pdu", "pdu", network="oob", rack_units=0)
            rack_pdus.append(d)
            new_places[d] = Place(rack.idx, 0)  # zero-U, mounted at the rack's rear
        pdus += rack_pdus
        target = host_rack.get(rack.idx, rack.idx)
        by_target.setdefault(target, []).extend(
            (m, port) for m in members + rack_pdus for port in mgmt_ports(b.devices[m], switches, server_oob_ports)
        )
    for rack in racks:
        if rack.idx in host_rack:
            continue
        endpoints = by_target.get(rack.idx, [])
        n_switch = oob_switches_per_rack(len(endpoints), oob)
        for s in range(n_switch):
            sw = b.device(
                f"OOB-{rack.id.split('.', 1)[-1]}" + (f"-{s + 1}" if n_switch > 1 else ""),
                "oob",
                oob.key,
                network="oob",
                rack_units=oob.rack_units,
                power_kw=oob.power_kw,
            )
            new_places[sw] = Place(rack.idx, rack_units - s * oob.rack_units - oob.rack_units + 1)
            oob_switches.append(sw)
            for port_i, (m, port) in enumerate(endpoints[s * ports_per_oob : (s + 1) * ports_per_oob]):
                b.link("oob", 0, "device-oob", m, port, port, sw, str(port_i + 1), str(port_i + 1), 1)
    up = oob.uplinks or {}
    up_speed = int(up.get("speed_gbps", 100))
    agg_radix = agg.radix(up_speed) or agg.cages
    if len(oob_switches) > agg_radix * (len(aggs) // AGG_UPLINKS):
        raise AssertionError("too few OOB aggregation switches were placed")
    for n, sw in enumerate(oob_switches):
        pair, agg_port = divmod(n, agg_radix)
        for side in range(AGG_UPLINKS):
            b.link(
                "oob",
                0,
                "oob-uplink",
                sw,
                f"up{side + 1}",
                f"up{side + 1}",
                aggs[2 * pair + side],
                str(agg_port + 1),
                str(agg_port + 1),
                up_speed,
            )
    return {"oob": oob_switches, "pdu": pdus, "places": new_places}
