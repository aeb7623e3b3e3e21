"""PFC headroom against hand-worked 802.1Qbb Annex N arithmetic (fabrics-qos-traffic.md C.3).

Common terms with a 9216 B switch MTU and the reference's 4,200 B RoCE frame:
  D-Max-Frame         = (9216 + 20) x 8 = 73,888 BT
  D-Pause             = 672 BT
  D-Max-No-Drop-Frame = (4200 + 20) x 8 = 33,760 BT
  D-Cable x2          = 2 x L m x 5 ns/m x R Gb/s  (1 ns at R Gb/s = R bits)
"""

from __future__ import annotations

import pytest

from engine.errors import SpecError
from engine.qos import HeadroomTerms, QosPolicy, bytes_to_us, headroom_bytes, per_speed_bits

FRAMES = 73_888 + 672 + 33_760  # = 108,320 BT, the same at every speed


def test_reference_terms():
    h = headroom_bytes(100, 0, 9216)
    rows = {n: b for n, b, _ in h.terms}
    assert rows["D-Max-Frame"] == 73_888 and rows["D-Pause"] == 672 and rows["D-Max-No-Drop-Frame"] == 33_760
    assert [n for n, _, _ in h.terms] == [
        "D-Max-Frame",
        "D-Pause",
        "D-Cable x2",
        "D-Intf",
        "D-Resp",
        "D-Max-No-Drop-Frame",
    ]


@pytest.mark.parametrize("cable_m, total", [(3, 54_491), (100, 66_616)])
def test_100g(cable_m, total):
    """100G uses only listed figures: D-Intf 122,880 BT, D-Resp 201,728 BT.

    3 m:   cable = 2 x 3 x 5 x 100 = 3,000 BT
           108,320 + 3,000 + 122,880 + 201,728 = 435,928 BT -> 435,928 / 8 = 54,491 B
    100 m: cable = 2 x 100 x 5 x 100 = 100,000 BT
           108,320 + 100,000 + 122,880 + 201,728 = 532,928 BT -> 66,616 B
    """
    h = headroom_bytes(100, cable_m, 9216)
    assert {n: b for n, b, _ in h.terms}["D-Intf"] == 122_880
    assert {n: b for n, b, _ in h.terms}["D-Resp"] == 201_728
    assert h.total_bytes == total


@pytest.mark.parametrize(
    "cable_m, cable_bits, total", [(3, 12_000, 134_400), (30, 120_000, 147_900), (100, 400_000, 182_900)]
)
def test_400g(cable_m, cable_bits, total):
    """400G: D-Resp 463,360 BT is listed; D-Intf is not, so it takes the 100G time (122,880 BT = 1.2288 us)
    at 400G: 122,880 x 4 = 491,520 BT.

    3 m:   cable 2 x 3 x 5 x 400 = 12,000;   108,320 + 12,000 + 491,520 + 463,360 = 1,075,200 BT -> 134,400 B
    30 m:  cable 120,000;                    108,320 + 120,000 + 491,520 + 463,360 = 1,183,200 BT -> 147,900 B
    100 m: cable 400,000;                    108,320 + 400,000 + 491,520 + 463,360 = 1,463,200 BT -> 182,900 B
    """
    h = headroom_bytes(400, cable_m, 9216)
    rows = {n: b for n, b, _ in h.terms}
    assert rows["D-Cable x2"] == cable_bits and rows["D-Intf"] == 491_520 and rows["D-Resp"] == 463_360
    assert h.total_bits == FRAMES + cable_bits + 491_520 + 463_360
    assert h.total_bytes == total


@pytest.mark.parametrize("cable_m, total", [(0.5, 252_760), (5, 257_260), (50, 302_260)])
def test_800g(cable_m, total):
    """800G: neither term is listed. D-Intf = 100G time x 8 = 983,040 BT; D-Resp = 400G time x 2 = 926,720 BT.

    0.5 m: cable 2 x 0.5 x 5 x 800 = 4,000;  108,320 + 4,000 + 983,040 + 926,720 = 2,022,080 BT -> 252,760 B
    5 m:   cable 40,000;                     2,058,080 BT -> 257,260 B
    50 m:  cable 400,000;                    2,418,080 BT -> 302,260 B
    """
    assert headroom_bytes(800, cable_m, 9216).total_bytes == total


def test_missing_speed_rule():
    """Below the first listed speed the first listed time is used; 200G takes the 100G time."""
    terms = HeadroomTerms()
    assert per_speed_bits(terms.d_intf_bits, 200) == (245_760, False)
    assert per_speed_bits(terms.d_resp_bits, 400) == (463_360, True)
    assert per_speed_bits(terms.d_resp_bits, 1) == (3_072, False)  # 30,720 BT at 10G -> same time at 1G


def test_terms_are_configurable():
    """qos.headroom.d_intf_bits.400 = 0 removes D-Intf: 400G 30 m -> (1,183,200 - 491,520) / 8 = 86,460 B."""
    p = QosPolicy.from_dict({"headroom": {"d_intf_bits": {"400": 0}}}, "ethernet")
    assert headroom_bytes(400, 30, 9216, p.headroom).total_bytes == 86_460
    with pytest.raises(SpecError) as e:
        QosPolicy.from_dict({"headroom": {"d_intf_bits": {"fast": 1}}}, "ethernet")
    assert e.value.errors[0].path == "qos.headroom.d_intf_bits.fast"


def test_memoised_on_rounded_cable():
    assert headroom_bytes(400, 30.04, 9216) is headroom_bytes(400, 30.0, 9216)


def test_thresholds_in_microseconds():
    """C.4: 150 KB / 1.5 MB = 12 / 120 us at 100G, 3 / 30 at 400G, 1.5 / 15 at 800G."""
    assert [bytes_to_us(150_000, s) for s in (100, 400, 800)] == [12, 3, 1.5]
    assert [bytes_to_us(1_500_000, s) for s in (100, 400, 800)] == [120, 30, 15]
