"""What upper apps offer on a design's own pages comes through the registry in common (apps/common/workspace.py):
the design page's buttons to the QoS policy and the design alternatives, the spec form's note under its QoS
section. The designs pages name no upper app's URL (tests/test_layering.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from apps.common.workspace import design_actions, form_notes, register_design_action, register_form_note
from apps.designs.services import design_create

TINY = {
    "name": "tiny",
    "servers": {"model": "dgx-h100", "count": 8},
    "compute_fabric": {"technology": "infiniband", "switch": "qm9700", "scalable_unit": 4},
}

pytestmark = pytest.mark.django_db


def test_the_design_page_offers_the_registered_actions_in_order(client, users):
    design = design_create(user=users.alice, spec=TINY)
    client.force_login(users.alice)
    html = client.get(reverse("designs:detail", args=[design.pk])).content.decode()
    actions = re.search(r'<div class="actions">(.*?)</div>', html, re.S).group(1)
    links = re.findall(r'<a class="button secondary" href="([^"]+)"[^>]*>([^<]+)</a>', actions)
    assert (reverse("qos:policy", args=[design.pk]), "QoS policy") in links
    assert (reverse("alternatives:list"), "Design alternatives") in links
    labels = [label for _href, label in links]
    assert labels.index("QoS policy") < labels.index("Design alternatives")


def test_the_spec_form_shows_the_qos_note_under_its_qos_section(client, users):
    design = design_create(user=users.alice, spec=TINY)
    client.force_login(users.alice)
    html = client.get(reverse("designs:edit", args=[design.pk])).content.decode()
    section = html[html.index('id="section-qos"') :]
    section = section[: section.index("</details>")]
    assert f'href="{reverse("qos:policy", args=[design.pk])}"' in section
    new = client.get(reverse("designs:new_blank")).content.decode()
    assert "Save the design first; its QoS page then edits the policy field by field." in new


def test_a_second_note_for_a_section_is_refused_and_the_same_one_is_harmless():
    register_form_note("qos", form_notes()["qos"])
    with pytest.raises(ValueError, match="already has the note"):
        register_form_note("qos", "designs/_other.html")


def test_registering_an_action_twice_lists_it_once(users):
    design = design_create(user=users.alice, spec=TINY)
    before = design_actions(design)
    register_design_action("Design alternatives", "alternatives:list", order=90, per_design=False)
    assert design_actions(design) == before
