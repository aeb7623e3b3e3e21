"""SONiC config_db.json fragment for one switch (load with `config load` or `sonic-cfggen -j ... --write-to-db`).

SONiC's stock qos_config.j2 maps DSCP 26 to lossy TC1 and enables PFC on 3 and 4 ([SONiC-QoS], C.1);
the fragment rewrites the whole DSCP_TO_TC_MAP (all 64 entries, under the stock map name so references
stay valid) so the RoCE DSCP lands in the lossless TC, and sets pfc_enable to the policy's priority only.
Buffer pools are ASIC-specific and not published (fabrics-qos-traffic.md F): the stock BUFFER_POOL is kept;
the lossless PG gets a profile sized from the 802.1Qbb headroom of the port's own cable.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring

from . import reference as ref
from .headroom import headroom_bytes
from .inputs import SwitchPorts
from .nvue import cable_length
from .policy import QosPolicy


def _cable(cable_m: float) -> str:
    # SONiC cable lengths are "<n>m" strings; whole metres rounded up, as NVUE.
    return f"{cable_length(cable_m)}m"


def dscp_entries(policy: QosPolicy) -> dict[str, str]:
    """All 64 entries, or (replace_stock_map false) only the class DSCPs merged over the stock map."""
    table = policy.dscp_to_priority()
    if policy.sonic.replace_stock_map:
        return {str(d): str(tc) for d, tc in enumerate(table)}
    return {str(d): str(table[d]) for c in (policy.roce, policy.cnp, policy.control) for d in c.dscp}


def effective_dscp_map(policy: QosPolicy) -> tuple[int, ...]:
    """DSCP -> TC the switch ends up with after the fragment is merged over the stock config."""
    from . import reference as ref

    stock = [ref.SONIC_STOCK_DSCP_TO_TC.get(d, ref.SONIC_STOCK_OTHER_TC) for d in range(64)]
    for d, tc in dscp_entries(policy).items():
        stock[int(d)] = int(tc)
    return tuple(stock)


def build(policy: QosPolicy, switch: SwitchPorts) -> dict:  # noqa: C901
    m = policy.sonic.map_name
    pfc = policy.pfc_priorities
    used = {c.priority for c in policy.classes}
    db: dict = {
        "DSCP_TO_TC_MAP": {m: dscp_entries(policy)},
        "TC_TO_QUEUE_MAP": {m: {str(tc): str(tc) for tc in range(8)}},
        # Lossless TCs get their own PG (as the stock 3->3); every other TC shares lossy PG 0.
        "TC_TO_PRIORITY_GROUP_MAP": {m: {str(tc): str(tc if tc in pfc else 0) for tc in range(8)}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {m: {str(p): str(p) for p in range(8)}},
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {m: {str(p): str(p) for p in pfc}} if pfc else {},
        "SCHEDULER": {},
        "WRED_PROFILE": {},
        "PORT_QOS_MAP": {},
        "QUEUE": {},
        "BUFFER_PROFILE": {},
        "BUFFER_PG": {},
        "CABLE_LENGTH": {m: {}},
        "PORT": {},
    }
    if not pfc:
        del db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"]
    sched = db["SCHEDULER"]
    queue_sched: dict[int, str] = {}
    for c in policy.classes:
        if c.scheduling == "strict":
            name = "scheduler.strict"
            sched[name] = {"type": "STRICT"}
        else:
            name = f"scheduler.{c.name}"
            sched[name] = {"type": "DWRR", "weight": str(c.weight)}
        queue_sched[c.priority] = name
    wred = "ROCE_ECN"
    ecn_q = set(policy.ecn_priorities())
    if ecn_q:
        e = policy.ecn
        prof = {"ecn": "ecn_all", "wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true"}
        for color in ("green", "yellow", "red"):
            prof[f"{color}_min_threshold"] = str(e.min_bytes)
            prof[f"{color}_max_threshold"] = str(e.max_bytes)
            prof[f"{color}_drop_probability"] = str(e.probability)
        db["WRED_PROFILE"][wred] = prof
    else:
        del db["WRED_PROFILE"]
    pfc_str = ",".join(map(str, pfc))
    qos_map = {"dscp_to_tc_map": m, "tc_to_queue_map": m, "tc_to_pg_map": m, "pfc_to_queue_map": m}
    # pfc_enable / pfcwd_sw_enable are always written: `config load` merges field by field, so leaving them out
    # in lossy mode would keep the stock "3,4". An empty string disables PFC on every queue
    # (sonic-yang-models sonic-port-qos-map.yang: pattern "([0-7](,[0-7])*)?", "Empty string is allowed").
    wd_on = bool(pfc) and policy.pfc.watchdog
    qos_map.update({"pfc_enable": pfc_str, "pfcwd_sw_enable": pfc_str if wd_on else ""})
    if pfc:
        qos_map["pfc_to_pg_map"] = m
    stock_pgs = _pg_range(ref.SONIC_STOCK_LOSSLESS_PG_KEY)
    lossy_pg = {"profile": ref.SONIC_STOCK_LOSSY_PROFILE}
    profiles = db["BUFFER_PROFILE"]
    wd = pfc and policy.pfc.watchdog
    if wd:
        db["PFC_WD"] = {"GLOBAL": {"POLL_INTERVAL": str(policy.pfc.watchdog_poll_ms)}}
    memo: dict[tuple[int, str], dict] = {}
    port_entry = {"mtu": str(policy.mtu.switch)}
    queue_entry = {
        q: ({"scheduler": queue_sched[q], "wred_profile": wred} if q in ecn_q else {"scheduler": queue_sched[q]})
        for q in sorted(used)
    }
    wd_entry = {
        "action": policy.pfc.watchdog_action,
        "detection_time": str(policy.pfc.watchdog_detect_ms),
        "restoration_time": str(policy.pfc.watchdog_restore_ms),
    }
    for p in switch.ports:
        port = p.port
        db["PORT"][port] = port_entry
        db["PORT_QOS_MAP"][port] = qos_map
        db["CABLE_LENGTH"][m][port] = _cable(p.cable_m)
        for q, entry in queue_entry.items():
            db["QUEUE"][f"{port}|{q}"] = entry
        if pfc:
            key = (p.speed_gbps, _cable(p.cable_m))
            if key not in memo:
                # Headroom for the profile's whole-metre length (the cable rounded up), so one profile fits all
                # ports of that speed and length. Stock naming: pg_lossless_<speed in Mb/s>_<cable>_profile.
                hr = headroom_bytes(p.speed_gbps, float(key[1][:-1]), policy.mtu.switch, policy.headroom).total_bytes
                name = f"pg_lossless_{p.speed_gbps * 1000}_{key[1]}_profile"
                xon = policy.sonic.xon_bytes
                profiles[name] = {
                    "pool": "ingress_lossless_pool",
                    "xon": str(xon),
                    "xoff": str(hr),
                    "size": str(xon + hr),
                    "dynamic_th": policy.sonic.dynamic_th,
                }
                memo[key] = {"profile": name}
            pg = memo[key]
            # Lossless priorities inside the stock range take the stock key itself ("3-4"; a priority of the
            # range without PFC gets no traffic: TC_TO_PRIORITY_GROUP_MAP sends its TC to PG 0); others get
            # their own PG key, which cannot overlap the range.
            if stock_pgs & set(pfc):
                db["BUFFER_PG"][f"{port}|{ref.SONIC_STOCK_LOSSLESS_PG_KEY}"] = pg
            else:
                db["BUFFER_PG"][f"{port}|{ref.SONIC_STOCK_LOSSLESS_PG_KEY}"] = lossy_pg
            for sp in pfc:
                if sp not in stock_pgs:
                    db["BUFFER_PG"][f"{port}|{sp}"] = pg
            if wd:
                db["PFC_WD"][port] = wd_entry
        else:
            # Lossy mode: the stock lossless PGs become lossy, so no port keeps a lossless queue.
            db["BUFFER_PG"][f"{port}|{ref.SONIC_STOCK_LOSSLESS_PG_KEY}"] = lossy_pg
    if not pfc:
        del db["BUFFER_PROFILE"]
    return db


def _pg_range(key: str) -> set[int]:
    lo, _, hi = key.partition("-")
    return set(range(int(lo), int(hi or lo) + 1))


def render(policy: QosPolicy, switch: SwitchPorts) -> str:
    return dumps(build(policy, switch))


def dumps(db: dict) -> str:
    """Valid, deterministic JSON with one table row per line. json.dumps(indent=...) falls back to the
    pure-Python encoder (about 10x slower); rows are encoded by the C encoder and joined here."""
    enc = json.JSONEncoder(sort_keys=True).encode
    key = encode_basestring  # C-accelerated string quoting
    seen: dict[int, str] = {}  # rows share dict objects (same entry on every port): encode each once

    def value(v) -> str:
        out = seen.get(id(v))
        if out is None:
            out = seen[id(v)] = enc(v)
        return out

    tables = []
    for name in sorted(db):
        rows = db[name]
        body = ",\n".join(f"    {key(k)}: {value(rows[k])}" for k in sorted(rows))
        tables.append(f"  {key(name)}: {{\n{body}\n  }}" if rows else f"  {key(name)}: {{}}")
    return "{\n" + ",\n".join(tables) + "\n}\n"
