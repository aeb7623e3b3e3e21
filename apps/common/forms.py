"""Form helpers shared by the apps' upload pages."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile


def upload_within_limit(f: UploadedFile | None) -> UploadedFile | None:
    """The uploaded file, or a form error naming its size against API_MAX_UPLOAD_BYTES: the pages refuse what the
    API would refuse, before the file is read."""
    if f is not None and f.size is not None and f.size > settings.API_MAX_UPLOAD_BYTES:
        raise forms.ValidationError(
            f"The file is {f.size:,} bytes; the limit is {settings.API_MAX_UPLOAD_BYTES:,} bytes."
        )
    return f
