"""TIA-606 style labels."""

import time

import pytest

from engine.physical import LabelEnd, LabelTemplate, cable_labels, trunk_labels

A = LabelEnd(site="DC1", room="", grid="AJ05", ru=42, port=17)
B = LabelEnd(site="DC1", room="", grid="C03", ru=14, port=4)


def test_each_end_names_its_own_end_first():
    at_a, at_b = cable_labels(LabelTemplate(), A, B)
    assert at_a == "DC1.AJ05-42:17/DC1.C03-14:04"
    assert at_b == "DC1.C03-14:04/DC1.AJ05-42:17"


def test_the_order_is_a_template_choice():
    at_a, at_b = cable_labels(LabelTemplate(own_end_first=False), A, B)
    assert at_a == at_b == "DC1.AJ05-42:17/DC1.C03-14:04"


def test_users_can_edit_the_template():
    t = LabelTemplate(end="<site>.<grid>-<ru:02>:<port:03>", cable="<cable> <near>/<far>")
    assert cable_labels(t, A, B, cable_id="C1")[0] == "C1 DC1.AJ05-42:017/DC1.C03-14:004"


def test_panel_ports_and_trunks_are_labelled():
    t = LabelTemplate()
    assert t.end_label(LabelEnd(site="DC1", grid="AJ05", ru=44, port=3)) == "DC1.AJ05-44:03"
    pa, pb = LabelEnd(site="DC1", grid="AJ05", ru=44), LabelEnd(site="DC1", grid="C03", ru=44)
    assert trunk_labels(t, "T-leaf-spine-R1-R9-1", pa, pb) == (
        "T-leaf-spine-R1-R9-1 DC1.AJ05-44/DC1.C03-44",
        "T-leaf-spine-R1-R9-1 DC1.C03-44/DC1.AJ05-44",
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"end": "<site>.<shelf>"}, "unknown placeholder <shelf>"),
        ({"cable": "<near>|<port>"}, "unknown placeholder <port>"),
        ({"end": "<site>.<grid"}, "malformed placeholder"),
    ],
)
def test_unknown_placeholders_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LabelTemplate(**kwargs)


def test_labels_are_cheap_enough_for_every_cable():
    t = LabelTemplate()
    ends = [LabelEnd(site="DC1", grid=f"A{i % 90:02d}", ru=i % 48, port=i % 64) for i in range(1000)]
    start = time.perf_counter()
    for i in range(100_000):
        cable_labels(t, ends[i % 1000], ends[(i * 7) % 1000])
    # 100k cables (200k labels); generous bound for a 2-core CI box.
    assert time.perf_counter() - start < 2.5
