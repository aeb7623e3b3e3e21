import re


def test_it_renders_the_landing_page(client, db):
    response = client.get("/")

    assert response.status_code == 200
    assert b"fabricdesign" in response.content
    assert b'href="/static/css/app.css"' in response.content


def test_it_loads_no_third_party_assets(client, db):
    # No CDN: every script, stylesheet and image must come from this app.
    html = client.get("/").content.decode()

    external = re.findall(r'(?:src|href)="((?:https?:)?//[^"]*)"', html)
    assert external == []


def test_it_shows_the_username_when_logged_in(client, users):
    client.force_login(users.bob)

    assert b"bob" in client.get("/").content


def test_the_stylesheet_is_served_by_whitenoise(client, db, settings):
    # Production serves from STATIC_ROOT after collectstatic; finders give
    # WhiteNoise the same files straight from static/ without that step.
    settings.WHITENOISE_USE_FINDERS = True

    response = client.get("/static/css/app.css")

    assert response.status_code == 200
