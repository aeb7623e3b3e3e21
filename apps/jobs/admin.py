"""Admin for staff: background jobs, read-only (workers change them with conditional updates)."""

from django.contrib import admin

from .models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "stage", "percent", "design", "created_by", "created_at", "finished_at")
    list_filter = ("kind", "status")
    search_fields = ("id", "design__name", "created_by__username")
    list_select_related = ("design", "created_by")
    readonly_fields = tuple(f.name for f in Job._meta.fields)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
