from __future__ import annotations

from django import forms
from django.core.files.uploadedfile import UploadedFile

from apps.common.forms import upload_within_limit
from engine.counters import FORMATS


class CounterUploadForm(forms.Form):
    prefix = "counters"  # the revision page has the measured-results form too: ids stay unique
    file = forms.FileField(
        label="Counter file",
        help_text="Tool output as printed: ibqueryerrors, perfquery, ethtool -S, or NVUE / EOS / SONiC JSON.",
    )
    format = forms.ChoiceField(label="Format", choices=list(FORMATS.items()))
    device = forms.CharField(
        label="Device", required=False, max_length=64, help_text="Host or switch name (Ethernet formats)."
    )
    interface = forms.CharField(
        label="Interface", required=False, max_length=64, help_text="For one interface's output (ethtool -S)."
    )
    taken_at = forms.DateTimeField(
        label="Read at",
        required=False,
        help_text="When the counters were read, e.g. 2026-12-03 18:00 (default: now).",
    )

    def clean_file(self) -> UploadedFile | None:
        return upload_within_limit(self.cleaned_data["file"])
