from __future__ import annotations

from django import forms
from django.core.files.uploadedfile import UploadedFile

from apps.common.forms import upload_within_limit
from engine.asbuilt.parsers import FORMATS

FORMAT_LABELS = {
    "ibnetdiscover": "ibnetdiscover (InfiniBand)",
    "iblinkinfo": "iblinkinfo (InfiniBand, with width and speed)",
    "lldpctl": "lldpctl -f json (lldpd: hosts, SONiC)",
    "nvue": "NVUE LLDP JSON (Cumulus Linux)",
    "eos": "Arista EOS show lldp neighbors | json",
    "csv": "CSV: device, port, neighbor_device, neighbor_port",
}


class AsBuiltUploadForm(forms.Form):
    # The revision page holds the measured-results form too: a prefix keeps the two forms' ids apart.
    prefix = "asbuilt"

    file = forms.FileField(label="As-built file", help_text="The tool's output as it printed it.")
    format = forms.ChoiceField(label="Format", choices=[(f, FORMAT_LABELS[f]) for f in FORMATS])
    device = forms.CharField(
        label="Device (LLDP dumps)",
        required=False,
        max_length=64,
        help_text="The system an lldpctl, NVUE or EOS dump comes from (they do not name it).",
    )
    width_only = forms.BooleanField(
        label="Judge by width only",
        required=False,
        help_text="For a simulator such as ibsim, which runs every lane at SDR.",
    )
    user_map = forms.FileField(
        label="Port map (optional CSV)",
        required=False,
        help_text="device,ident,port lines: an RDMA device (mlx5_3), netdev or port GUID -> the design's port.",
    )

    def clean_file(self) -> UploadedFile | None:
        return upload_within_limit(self.cleaned_data["file"])
