from __future__ import annotations

from typing import Any, cast

from django import forms

from engine.catalog import load_catalog
from engine.traffic.workload import list_workload_presets


class RequirementForm(forms.Form):
    name = forms.CharField(required=False, max_length=200, label="Study name")
    server_model = forms.ChoiceField(label="Server model")
    gpus = forms.IntegerField(min_value=1, max_value=200_000, label="GPUs")
    workloads = forms.MultipleChoiceField(required=False, label="Workloads", widget=forms.CheckboxSelectMultiple)
    networks = forms.MultipleChoiceField(
        required=False,
        label="Other networks",
        choices=[("storage", "storage"), ("inband", "in-band"), ("oob", "out-of-band")],
        widget=forms.CheckboxSelectMultiple,
    )
    technology = forms.ChoiceField(
        required=False, choices=[("", "either"), ("infiniband", "InfiniBand"), ("ethernet", "Ethernet")]
    )
    max_oversubscription = forms.ChoiceField(
        label="Most compute oversubscription", choices=[(r, r) for r in ("1:1", "3:2", "2:1", "3:1")]
    )
    rack_power_kw = forms.FloatField(required=False, min_value=0.1, label="Power per rack (kW)")
    budget = forms.DecimalField(required=False, min_value=1, label="Budget (price list currency)")
    max_candidates = forms.IntegerField(min_value=1, max_value=64, initial=12, label="Candidates to compute")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        servers = load_catalog().servers
        cast(forms.ChoiceField, self.fields["server_model"]).choices = [(k, s.name) for k, s in servers.items()]
        cast(forms.MultipleChoiceField, self.fields["workloads"]).choices = [(k, k) for k in list_workload_presets()]

    def requirement(self) -> dict:
        d = self.cleaned_data
        out = {
            "server_model": d["server_model"],
            "gpus": d["gpus"],
            "workloads": list(d["workloads"]),
            "networks": list(d["networks"]),
            "max_oversubscription": {"compute": d["max_oversubscription"]},
            "max_candidates": d["max_candidates"],
        }
        if d.get("technology"):
            out["technology"] = d["technology"]
        if d.get("rack_power_kw") is not None:
            out["rack_power_kw"] = d["rack_power_kw"]
        if d.get("budget") is not None:
            out["budget"] = str(d["budget"])
        return out
