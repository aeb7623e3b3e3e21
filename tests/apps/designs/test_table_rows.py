"""The table pages' rows (templatetags link_rows / cable_rows) are the markup the template loop they replace wrote,
cell for cell, escaping included: the loop is kept here as their specification."""

from __future__ import annotations

import re

import pytest
from django.template import Context, Template

from apps.designs.tables import cable_page, link_page
from tests.apps.designs.test_tables import rev  # noqa: F401  (the stored small revision, links without a medium)

pytestmark = pytest.mark.django_db

LINK_LOOP = """{% load fabric %}{% for r in rows %}
<tr><td><code>L{{ r.link_id|stringformat:"06d" }}</code></td><td>{{ r.network }}{% if r.plane %} <small>plane {{ r.plane }}</small>{% endif %}</td><td>{{ r.tier }}</td>
<td class="num">{{ r.speed_gbps }}</td><td>{{ r.a_device }} <small>{{ r.a_port }}</small><br><small class="muted">{{ r.a_rack }} · {{ r.a_u|default_if_none:"—" }}</small></td>
<td>{{ r.b_device }} <small>{{ r.b_port }}</small><br><small class="muted">{{ r.b_rack }} · {{ r.b_u|default_if_none:"—" }}</small></td>
<td class="num">{{ r.length_m|num:2 }}</td><td>{{ r.medium|default:"—" }}</td><td><small>{{ r.a_part|default:"—" }} / {{ r.b_part|default:"—" }}</small></td>
<td><small>{{ r.cables|default:"—" }}</small></td><td class="num">{{ r.fibers }}</td><td class="num">{{ r.loss_db|num:2 }}</td><td class="num">{{ r.margin_db|num:2 }}</td>
<td><span class="verdict verdict-{{ r.status|default:'none' }}">{{ r.status|default:"—" }}</span></td></tr>
{% endfor %}"""

CABLE_LOOP = """{% load fabric %}{% for r in rows %}
<tr><td><code>C{{ r.cable_id|stringformat:"06d" }}</code></td><td>{{ r.network }}</td><td>{{ r.tier }}</td><td>{{ r.kind }}</td><td><code>{{ r.part }}</code></td>
<td class="num">{{ r.length_m|num:1 }}</td><td>{{ r.a_device }} <small>{{ r.a_port }}</small></td><td>{{ r.a_rack }}</td>
<td>{{ r.b_device }} <small>{{ r.b_port }}</small></td><td>{{ r.b_rack }}</td>
<td><small>{{ r.label_a }}</small></td><td><small>{{ r.label_b }}</small></td><td><small>{{ r.links }}</small></td></tr>
{% endfor %}"""


def same_markup(html: str) -> str:
    return re.sub(r">\s+<", "><", html.strip())


def render(loop: str, rows: list[dict]) -> str:
    return Template(loop).render(Context({"rows": rows}))


def test_link_rows_are_the_loop_s_markup(rev):
    rows = link_page(revision=rev, limit=1000).rows
    assert any(r["loss_db"] is None for r in rows) and any(not r["medium"] for r in rows)  # dashes get written
    tricky = {**rows[0], "a_device": "<b>x&y</b>", "a_port": '"p"', "plane": 2, "a_u": None, "status": ""}

    for sample in (rows, [tricky]):
        filtered = Template("{% load fabric %}{{ rows|link_rows }}").render(Context({"rows": sample}))
        assert same_markup(filtered) == same_markup(render(LINK_LOOP, sample))
    assert "&lt;b&gt;x&amp;y&lt;/b&gt;" in filtered


def test_cable_rows_are_the_loop_s_markup(rev):
    rows = cable_page(revision=rev, limit=1000).rows
    tricky = {**rows[0], "label_a": "<script>", "part": "a&b"}

    for sample in (rows, [tricky]):
        filtered = Template("{% load fabric %}{{ rows|cable_rows }}").render(Context({"rows": sample}))
        assert same_markup(filtered) == same_markup(render(CABLE_LOOP, sample))
    assert "&lt;script&gt;" in filtered
