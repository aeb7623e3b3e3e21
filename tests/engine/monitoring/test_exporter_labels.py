"""The rules select ports by the labels node_exporter really emits, and record each link once.

node_exporter's `infiniband` collector labels an HCA port `device="mlx5_11", port="1"` (collector/
infiniband_linux.go: labels device and port; mlx5 gives every port an RDMA device of its own), never by the DGX's
cage name OSFP1P1. The catalog's `rdma_devices` map (the as-built import's) says which mlx5 device is which port.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml

from engine.catalog import load_catalog
from engine.ifnames import ib_port_number
from engine.monitoring.ports import port_groups, targets
from engine.monitoring.rules import iter_rules_yaml, rules_document
from engine.monitoring.utilization import parse_prometheus, port_index
from engine.pipeline import compute_design
from engine.spec import parse_spec
from tests.engine.conftest import DELETE, build, catalog_no_media, spec

from .promtool import needs_promtool, promtool

STEP_S = 15
NDR_BYTES = 400e9 / 8  # the DGX H100's 400G compute ports, bytes per second
# past the first hour, so the 1h average window holds only steady rates (a rate's first minute reads low)
EVAL = "80m"


@pytest.fixture(scope="module")
def dgx():
    return build()  # 128 DGX H100 on InfiniBand, 4 SU


def _counter(per_second: float, steps: int = 400) -> str:
    return f"0+{per_second * STEP_S:.6g}x{steps}"


def test_a_dgx_h100_compute_port_is_selected_by_its_rdma_device_and_port_1(dgx):
    rdma = load_catalog().servers["dgx-h100"].rdma_devices
    groups, notes = port_groups(dgx)
    servers = [g for g in groups if dict(g.selector)["fabric_role"] == "server"]
    by_port = {dict(g.labels)["fabric_port"]: g for g in servers}
    assert set(by_port) == set(rdma)
    for port, device in rdma.items():
        assert by_port[port].ports == (device,) and by_port[port].port_selector == (("port", "1"),)
    text = "".join(iter_rules_yaml(dgx))
    assert 'device=~`mlx5_11`, port="1"' in text and "OSFP1P1`" not in text
    assert not [n for n in notes if "dgx-h100" in n]


def test_a_server_model_without_an_rdma_map_gets_no_rule_that_cannot_match_but_a_note(tmp_path):
    result = build(servers={"model": "dgx-b200"})
    groups, notes = port_groups(result)
    assert not [g for g in groups if dict(g.selector)["fabric_role"] == "server"]
    (note,) = [n for n in notes if n.startswith("dgx-b200 compute ports")]
    assert "OSFP1P1" in note and "rdma_devices" in note and "switch end" in note
    # its server-leaf links are recorded at the leaf instead, so none goes unwatched
    leaf_down = [g for g in groups if dict(g.selector)["fabric_role"] == "leaf" and ("tier", "node-leaf") in g.labels]
    assert sum(len(g.ports) for g in leaf_down) == 32 and not any(g.lower for g in leaf_down)
    head = "".join(iter_rules_yaml(result)).split("groups:")[0]
    assert "# Note: dgx-b200 compute ports OSFP1P1" in head


def _target(result, name: str) -> dict:
    return next(t["labels"] for t in targets(result, 9100) if t["labels"]["fabric_device"] == name)


def _series(labels: dict) -> str:
    return "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"


@needs_promtool
def test_promtool_fires_the_utilization_alert_once_per_link_at_85_percent_and_nothing_else(dgx, tmp_path):
    """Two DGX H100 scraped by node_exporter, all 16 HCAs: three links carry 85 % each way, the rest idle. The
    leaf's end of one hot link also reports 85 % (as a switch exporter using the same names would): the link is
    still one alert, raised from the server's end. 85 % is above the 80 % average target, below the 95 % peak."""
    rdma = load_catalog().servers["dgx-h100"].rdma_devices
    hot = {("DGX-SU01-N01", "OSFP1P1"), ("DGX-SU01-N01", "OSFP4P2"), ("DGX-SU02-N05", "OSFP2P1")}
    inputs = []
    for host in ("DGX-SU01-N01", "DGX-SU02-N05"):
        target = _target(dgx, host)
        for port, device in rdma.items():
            labels = {**target, "device": device, "port": "1", "instance": f"{host}:9100", "job": "node"}
            load = 0.85 * NDR_BYTES if (host, port) in hot else 0.0
            for metric, rate in (
                ("node_infiniband_port_data_transmitted_bytes_total", load),
                ("node_infiniband_port_data_received_bytes_total", load),
                ("node_infiniband_port_packets_transmitted_total", 1e6),
                ("node_infiniband_port_packets_received_total", 1e6),
                ("node_infiniband_port_discards_transmitted_total", 0),
                ("node_infiniband_port_errors_received_total", 0),
                ("node_infiniband_link_downed_total", 0),
                ("node_infiniband_link_error_recovery_total", 0),
                ("node_infiniband_symbol_error_total", 0),
            ):
                inputs.append({"series": metric + _series(labels), "values": _counter(rate)})
    # the leaf's end of DGX-SU01-N01 OSFP1P1, as if its switch were scraped with node_exporter's names
    link = next(lk for lk in dgx.links if dgx.devices[lk.a].name == "DGX-SU01-N01" and lk.a_port == "OSFP1P1")
    leaf = dgx.devices[link.b].name
    leaf_labels = {**_target(dgx, leaf), "device": str(ib_port_number(link.b_port)), "instance": f"{leaf}:9100"}
    for metric in (
        "node_infiniband_port_data_transmitted_bytes_total",
        "node_infiniband_port_data_received_bytes_total",
    ):
        inputs.append({"series": metric + _series(leaf_labels), "values": _counter(0.85 * NDR_BYTES)})

    def expected(host: str, port: str) -> dict:
        rail = str(next(p.rail for p in load_catalog().servers["dgx-h100"].compute_ports if p.name == port) + 1)
        target = _target(dgx, host)
        labels = {
            **target,
            "device": rdma[port],
            "port": "1",
            "instance": f"{host}:9100",
            "job": "node",
            "fabric_port": port,
            "network": "compute",
            "plane": "0",
            "pod": "1",
            "rail": rail,
            "tier": "node-leaf",
            "severity": "warning",
        }
        where = f"{host} {rdma[port]} (compute node-leaf, plane 0, rail {rail}, SU {target['su']})"
        return {
            "exp_labels": labels,
            "exp_annotations": {
                "summary": f"{where}: 1h average 85%, above the 80% average target",
                "description": "A link busy above the average target for long needs capacity or a better placement.",
            },
        }

    doc, _ = rules_document(dgx)
    names = [a["alert"] for a in doc["groups"][2]["rules"]]
    assert "FabricLinkUtilizationAverage" in names and len(names) >= 8
    firing = {"FabricLinkUtilizationAverage": [expected(h, p) for h, p in sorted(hot)]}
    rules = tmp_path / "rules.yaml"
    rules.write_text("".join(iter_rules_yaml(dgx)))
    test = {
        "rule_files": [rules.name],
        "evaluation_interval": f"{STEP_S}s",
        "tests": [
            {
                "interval": f"{STEP_S}s",
                "input_series": inputs,
                "alert_rule_test": [
                    {"eval_time": EVAL, "alertname": name, "exp_alerts": firing.get(name, [])} for name in names
                ],
            }
        ],
    }
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test, sort_keys=False))
    out = promtool("test", "rules", "test.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout


def test_an_ethernet_server_port_is_selected_by_its_netdev_when_the_catalog_names_it():
    """The ethtool collector labels a port device="<netdev>" and has no port label. No shipped model has a netdevs
    map (docs/data-gaps.md), so the test gives the hgx-8gpu one, as a site would in its catalog."""
    base = catalog_no_media()
    hgx = base.servers["hgx-8gpu"]
    netdevs = {p.name: f"enp{i + 1}s0np0" for i, p in enumerate(hgx.compute_ports)}
    catalog = replace(base, servers={**base.servers, "hgx-8gpu": replace(hgx, netdevs=netdevs)})
    raw = spec(
        servers={"model": "hgx-8gpu", "count": 32},
        compute_fabric={"technology": "ethernet", "switch": "sn5600", "scalable_unit": DELETE},
    )
    result = compute_design(parse_spec(raw), catalog)
    groups, notes = port_groups(result)
    nic1 = next(g for g in groups if ("fabric_port", "NIC1") in g.labels)
    assert nic1.ports == ("enp1s0np0",) and nic1.port_selector == () and nic1.lower
    assert not [n for n in notes if n.startswith("hgx-8gpu compute")]
    # the server end records its links: the leaf's server-facing ports get no rule
    assert not [g for g in groups if dict(g.selector)["fabric_role"] == "leaf" and ("tier", "node-leaf") in g.labels]


def test_a_utilization_snapshot_places_a_series_by_its_rdma_device(dgx):
    """A Prometheus answer whose series carry only the exporter's and the targets' labels (no design labels) is
    placed by fabric_device and the device label node_exporter gave it."""
    index = port_index(dgx)
    answer = {
        "status": "success",
        "data": {
            "resultType": "vector",
            "result": [{"metric": {"fabric_device": "DGX-SU01-N01", "device": "mlx5_0"}, "value": [0, "0.5"]}],
        },
    }
    (series,), notes = parse_prometheus(answer, index)
    assert notes == []
    assert (series.labels["port"], series.labels["rail"], series.labels["tier"]) == ("OSFP4P2", "8", "node-leaf")
