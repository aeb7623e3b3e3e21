"""Counter files as the tools print them, read into canonical counters (engine/counters/ib.py, ethernet.py).

Inputs:
* ibqueryerrors_ibsim.txt, perfquery_ibsim.txt: captured from ibqueryerrors and perfquery (infiniband-diags 44)
  run through ibsim 0.10 (Debian) on its net.2sw2path4hca example with OpenSM running, after
  `PerformanceSet "Switch1"[3] PortCounters.SymbolErrorCounter=17` and `...LinkDownedCounter=2`.
* nvue_swp1.json: the values of the NVIDIA Cumulus Linux 5.13 user guide, "Monitoring Interfaces and
  Transceivers with NVUE" (`nv show interface swp1` link stats, and `nv show interface swp1 link phy-detail`),
  in the shape `nv show interface -o json` prints (interface -> link -> stats / phy-detail).
* sonic_counters.json, sonic_fec_stats.json: the rows of the sonic-utilities Command Reference examples
  ("show interfaces counters", "show interfaces counters fec-stats"), as `-j` prints them (portstat's
  table_as_json: {iface: {column: formatted value}}).
* eos_counters_errors.json: the key names of Arista EOS `show interfaces counters errors | json`
  (interfaceErrorCounters); the values are ours.
* ethtool_mlx5.txt: counter names from the Linux kernel's "mlx5 counters" page; the values are ours.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.counters import CounterParseError, parse_counters

DATA = Path(__file__).parent / "data"


def read(name: str) -> str:
    return (DATA / name).read_text()


def test_ibqueryerrors_lists_the_ports_over_threshold_and_skips_the_switch_total():
    f = parse_counters(read("ibqueryerrors_ibsim.txt"), "ibqueryerrors")
    assert f.implicit_zero and f.checked_ports == 20
    [r] = f.readings  # "port ALL" (the switch's sum) is not a port
    assert (r.device, r.port, r.guid) == ("Switch1", "3", "0x200000")
    assert r.counters == {"symbol_errors": 17, "link_downed": 2}  # data counters are not error counters
    assert set(f.reported) >= {"symbol_errors", "link_downed", "rcv_errors", "xmit_discards"}


def test_ibqueryerrors_of_a_clean_fabric_is_a_snapshot_of_zeros():
    text = "\n## Summary: 6 nodes checked, 0 bad nodes found\n##          20 ports checked, 0 ports have errors\n"
    f = parse_counters(text, "ibqueryerrors")
    assert f.readings == () and f.implicit_zero and f.checked_ports == 20


def test_ibqueryerrors_cut_short_is_refused():
    with pytest.raises(CounterParseError, match="Summary"):
        parse_counters('Errors for 0x1 "sw"\n   GUID 0x1 port 3: [SymbolErrorCounter == 1]\n', "ibqueryerrors")


def test_perfquery_names_the_port_by_lid_and_keeps_every_counter_it_prints():
    f = parse_counters(read("perfquery_ibsim.txt"), "perfquery")
    [r] = f.readings
    assert (r.device, r.port) == ("lid 1", "3")
    assert r.counters == {
        "symbol_errors": 17,
        "link_error_recovery": 0,
        "link_downed": 2,
        "rcv_errors": 0,
        "xmit_discards": 0,
    }
    assert not f.implicit_zero


def test_perfquery_adds_up_the_per_lane_fec_counters():
    text = (
        "# Port extended speeds counters: Lid 5 port 1\n"
        "FECCorrectableBlockCtrLane0:.....10\nFECCorrectableBlockCtrLane1:.....5\n"
        "FECUncorrectableBlockCtrLane0:...1\nFECUncorrectableBlockCtrLane1:...0\n"
    )
    [r] = parse_counters(text, "perfquery").readings
    assert r.counters == {"fec_corrected": 15, "fec_uncorrectable": 1}


def test_nvue_reads_link_stats_and_phy_detail():
    f = parse_counters(read("nvue_swp1.json"), "nvue", device="leaf-1")
    [r] = f.readings
    assert (r.device, r.port) == ("leaf-1", "swp1")
    raw = 747567424 + 215603747 + 158456437 + 30578923 + 121708834 + 29244642 + 79102523 + 96656135
    assert r.counters == {
        "carrier_transitions": 4,
        "rcv_errors": 0,
        "xmit_discards": 0,
        "symbol_errors": 0,
        "fec_uncorrectable": 0,
        "fec_corrected": raw,  # the raw errors FEC saw
    }


def test_nvue_single_interface_output_needs_the_interface():
    phy = '{"symbol-errors": 2, "effective-errors": 1, "phy-raw-errors-lane0": 10}'
    with pytest.raises(CounterParseError, match="interface is required"):
        parse_counters(phy, "nvue", device="leaf-1")
    [r] = parse_counters(phy, "nvue", device="leaf-1", interface="swp3").readings
    assert r.counters == {"symbol_errors": 2, "fec_uncorrectable": 1, "fec_corrected": 10}


def test_sonic_reads_formatted_values_and_the_fec_columns():
    fec = parse_counters(read("sonic_fec_stats.json"), "sonic", device="leaf-2")
    assert {r.port: r.counters for r in fec.readings} == {
        "Ethernet0": {"fec_corrected": 0, "fec_uncorrectable": 0, "symbol_errors": 0},
        "Ethernet8": {"fec_corrected": 0, "fec_uncorrectable": 0, "symbol_errors": 0},
    }
    counters = parse_counters(read("sonic_counters.json"), "sonic", device="leaf-2")
    assert {r.port: r.counters for r in counters.readings} == {
        "Ethernet0": {"rcv_errors": 0, "xmit_discards": 0},
        "Ethernet4": {"rcv_errors": 0, "xmit_discards": 0},
    }


def test_sonic_not_available_is_no_reading_and_text_is_an_error():
    [r] = parse_counters('{"Ethernet0": {"FEC_CORR": "N/A", "FEC_UNCORR": "7"}}', "sonic", device="s").readings
    assert r.counters == {"fec_uncorrectable": 7}
    with pytest.raises(CounterParseError, match=r"Ethernet0.FEC_UNCORR"):
        parse_counters('{"Ethernet0": {"FEC_UNCORR": "lots"}}', "sonic", device="s")


def test_eos_reads_the_error_counters():
    f = parse_counters(read("eos_counters_errors.json"), "eos", device="spine-1")
    assert {r.port: r.counters for r in f.readings} == {
        "Ethernet1/1": {"rcv_errors": 0, "symbol_errors": 0},
        "Ethernet1/5": {"rcv_errors": 3, "symbol_errors": 12},
    }


def test_eos_link_status_changes_are_carrier_transitions():
    text = '{"interfaces": {"Ethernet3/1": {"interfaceCounters": {"linkStatusChanges": 6, "outDiscards": 0}}}}'
    [r] = parse_counters(text, "eos", device="spine-1").readings
    assert r.counters == {"carrier_transitions": 6, "xmit_discards": 0}


def test_ethtool_maps_the_mlx5_phy_counters():
    f = parse_counters(read("ethtool_mlx5.txt"), "ethtool", device="dgx-01", interface="ibp24s0")
    [r] = f.readings
    assert (r.device, r.port) == ("dgx-01", "ibp24s0")
    assert r.counters == {
        "rcv_errors": 0,
        "link_downed": 1,
        "symbol_errors": 0,
        "fec_corrected": 3081,
        "xmit_discards": 0,
    }


@pytest.mark.parametrize(
    "fmt, text, kwargs, message",
    [
        ("ethtool", "NIC statistics:\n rx_packets: 1\n", {"interface": "eth0"}, "device is required"),
        ("ethtool", "this is not ethtool\n", {"device": "h", "interface": "eth0"}, "line 1"),
        ("nvue", "{not json", {"device": "s"}, "not JSON"),
        ("eos", "[]", {"device": "s"}, "expected a JSON object"),
        ("perfquery", "hello\n", {}, "not perfquery output"),
        ("xml", "<a/>", {}, "unknown format"),
    ],
)
def test_it_says_why_a_file_cannot_be_read(fmt, text, kwargs, message):
    with pytest.raises(CounterParseError, match=message):
        parse_counters(text, fmt, **kwargs)


def test_perfquery_lids_are_named_by_an_ibnetdiscover_sweep_of_the_same_fabric():
    """ibnetdiscover_ibsim_lids.txt: ibnetdiscover through ibsim on net.2sw2path4hca after OpenSM gave LIDs."""
    from engine.counters.lids import lid_names, resolve_lids

    names = lid_names(read("ibnetdiscover_ibsim_lids.txt"))
    assert names == {1: "Switch1", 3: "Switch2", 2: "Hca1", 4: "Hca2", 5: "Hca3", 6: "Hca4"}
    f = resolve_lids(parse_counters(read("perfquery_ibsim.txt"), "perfquery"), names)
    assert [(r.device, r.port) for r in f.readings] == [("Switch1", "3")]
    unknown = resolve_lids(parse_counters(read("perfquery_ibsim.txt"), "perfquery"), {})
    assert unknown.readings[0].device == "lid 1"
