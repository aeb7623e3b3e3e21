"""Admin for staff: designs with their shares, and read-only revisions (a revision never changes)."""

from django.contrib import admin
from django.http import HttpRequest

from .models import Design, DesignShare, Revision


class DesignShareInline(admin.TabularInline):
    model = DesignShare
    extra = 0
    # The username is the share (DesignShare); the account it names is linked when there is one.
    fields = ("username", "access", "user")
    readonly_fields = ("user",)


_REVISION_FIELDS = ("number", "created_at", "created_by", "link_count", "cable_count", "compute_seconds")


class RevisionInline(admin.TabularInline):
    model = Revision
    extra = 0
    fields = _REVISION_FIELDS
    readonly_fields = _REVISION_FIELDS
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Design | None = None) -> bool:
        return False


@admin.register(Design)
class DesignAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "preset", "updated_at", "created_at")
    list_filter = ("preset",)
    search_fields = ("name", "owner__username")
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    readonly_fields = ("created_at", "updated_at", "schema_version")
    inlines = (DesignShareInline, RevisionInline)


@admin.register(Revision)
class RevisionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "design", "number", "link_count", "cable_count", "compute_seconds", "created_at")
    list_select_related = ("design",)
    search_fields = ("design__name",)
    # The summary and link rows are the record of a computation: staff may look and delete, not edit.
    readonly_fields = tuple(f.name for f in Revision._meta.fields)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Revision | None = None) -> bool:
        return False
