from django.urls import path

from . import pages

app_name = "exports"
urlpatterns = [
    path("<int:pk>/revisions/<int:number>/files/<str:kind>", pages.revision_file, name="revision_file"),
    path("<int:pk>/revisions/<int:number>/blast-radius/", pages.revision_blast_radius_view, name="blast_radius"),
]
