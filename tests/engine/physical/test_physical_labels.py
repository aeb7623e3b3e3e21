"""TIA-606 style labels."""

import pytest

from engine.physical import LabelEnd, LabelTemplate, cable_labels, cable_labels_of, port_template, trunk_labels

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


@pytest.mark.parametrize(
    "end",
    [
        "<site><room>.<grid>-<ru:02>:<port:02>",  # the default
        "<grid>-<ru:03>:<port>/<device>",  # fields after the port
        "{<port:04>}|<rack>|<row>|<tier>",  # braces in the literal text, a padded port first
    ],
)
def test_a_port_template_renders_what_the_whole_template_renders(end):
    """The per-device shortcut (every field but the port filled in once) gives the same label for every port."""
    t = LabelTemplate(end=end)
    ends = [
        LabelEnd(site="DC1", grid="AJ05", ru=7, device="L{1}", rack="DC1.AJ05", row="AJ"),
        LabelEnd(site="", grid="", ru="", device="X"),
    ]
    for e in ends:
        fmt = port_template(t._end, e)
        for port in (1, 17, "17.2", "OSFP1P2", ""):
            assert fmt.format(port) == t._end.format(*e._replace(port=port))


def test_labels_from_rendered_ends_match_labels_from_ends():
    t = LabelTemplate(cable="<cable> <near>={<far>}", own_end_first=True)
    assert cable_labels_of(t, t._end.format(*A), t._end.format(*B), "C000001") == cable_labels(
        t, A, B, cable_id="C000001"
    )
