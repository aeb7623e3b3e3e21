"""The matcher: observed port identities (IB node descriptions, platform interface names, user maps) resolve to
the plan's ports and links."""

from __future__ import annotations

import pytest

from engine.asbuilt.matching import PortMatcher, PortRef, UserMapError, norm_guid, parse_user_map
from engine.asbuilt.plan import planned_fabric
from engine.asbuilt.records import ObservedEnd
from engine.catalog import load_catalog
from engine.pipeline import compute_design
from engine.spec import parse_spec

IB_16 = {
    "name": "ib",
    "servers": {"model": "dgx-h100", "count": 16},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 32},
}
ROCE_16 = {
    "name": "roce",
    "servers": {"model": "dgx-h100", "count": 16},
    "compute_fabric": {"technology": "ethernet", "switch": "sn5600", "scalable_unit": 32},
}


@pytest.fixture(scope="module")
def ib():
    return planned_fabric(compute_design(parse_spec(IB_16), load_catalog()))


def test_an_hca_description_names_the_rail_through_the_catalog_rdma_map(ib):
    m = PortMatcher(ib.links, ib.aliases)
    # DGX H100 user guide, Network Modules: OSFP4P2 is mlx5_0, OSFP1P1 mlx5_11.
    assert m.port(ObservedEnd("DGX-SU01-N03 mlx5_0", "1")) == PortRef("DGX-SU01-N03", "OSFP4P2")
    assert m.port(ObservedEnd("dgx-su01-n03 mlx5_11", "1")) == PortRef("DGX-SU01-N03", "OSFP1P1")
    # The planned ibnetdiscover file's own CA names resolve as well.
    assert m.port(ObservedEnd("DGX-SU01-N03 HCA-2", "1")) == PortRef("DGX-SU01-N03", "OSFP1P2")


def test_a_quantum_switch_description_and_ib_port_number_resolve(ib):
    m = PortMatcher(ib.links, ib.aliases)
    # cage 17, port 2 of a twin-port cage is IB port 2(17-1)+2 = 34
    ref = m.port(ObservedEnd("MF0;CF-SU01-L01:MQM9700/U1", "34"))
    assert ref == PortRef("CF-SU01-L01", "17/2")
    assert ref in m.ends(m.link_at(ref))
    assert m.device("cf-su01-l01.fabric.example") == "CF-SU01-L01"
    assert m.port(ObservedEnd("nosuchhost mlx5_0", "1")) is None


def test_ethernet_names_come_from_the_interface_map_of_the_switch_configs():
    fabric = planned_fabric(compute_design(parse_spec(ROCE_16), load_catalog()), ethernet_os="nvue")
    m = PortMatcher(fabric.links, fabric.aliases)
    lk = next(lk for lk in fabric.links if lk.b_device.startswith("CF-SU01-L01") and lk.b_port == "1/2")
    assert m.port(ObservedEnd("CF-SU01-L01", "swp1s1")) == PortRef("CF-SU01-L01", "1/2")
    assert m.link_at(PortRef("CF-SU01-L01", "1/2")) == lk
    eos = planned_fabric(compute_design(parse_spec(ROCE_16), load_catalog()), ethernet_os="sonic")
    assert PortMatcher(eos.links, eos.aliases).port(ObservedEnd("CF-SU01-L01", "Ethernet4")) == PortRef(
        "CF-SU01-L01", "1/2"
    )


def test_a_user_map_supplies_rdma_devices_netdevs_and_guids(ib):
    user = parse_user_map("device,ident,port\nDGX-SU01-N01,ibp99s0,OSFP2P1\n,0x0002C9FFFE000001,OSFP3P1\n")
    m = PortMatcher(ib.links, ib.aliases, user)
    assert m.port(ObservedEnd("DGX-SU01-N01", "ibp99s0")) == PortRef("DGX-SU01-N01", "OSFP2P1")
    assert m.port(ObservedEnd("DGX-SU01-N02 unknown", "1", guid="0x2c9fffe000001")) == PortRef(
        "DGX-SU01-N02", "OSFP3P1"
    )
    assert norm_guid("0x0002C9FFFE000001") == "0x2c9fffe000001"
    with pytest.raises(UserMapError, match="line 2"):
        parse_user_map("a,b,c\nonly,two\n")


def test_a_custom_server_model_carries_its_own_rdma_map_and_a_bad_one_is_refused():
    from engine.errors import CatalogError

    model = {"name": "Custom 8-GPU", "vendor": "Acme", "gpus": 8, "rack_units": 8, "same_ports_as": "dgx-h100"}
    good = load_catalog({"servers": {"my-8gpu": {**model, "rdma_devices": {"OSFP1P1": "mlx5_0"}}}})
    assert good.servers["my-8gpu"].rdma_devices == {"OSFP1P1": "mlx5_0"}
    assert good.servers["dgx-h200"].rdma_devices["OSFP4P2"] == "mlx5_0"  # same ports as the H100, same map
    with pytest.raises(CatalogError, match="rdma_devices"):
        load_catalog({"servers": {"my-8gpu": {**model, "rdma_devices": {"OSFP1P1": "mlx5 0"}}}})
