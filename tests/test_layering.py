"""The apps form layers, and an app imports only from the layers below it (under all of them sit deliverables/, the
framework-free renderers, and beneath it the engine; neither imports an app, and the engine imports no deliverable:
tests/engine/test_engine_is_framework_free.py).

    alternatives   design-alternatives studies: candidate fabrics of one requirement, judged, picked as a design
    counters       port error counters after commissioning: snapshots, drift, suspects (its REST views and page section too)
    commissioning  as-built imports, their classification and fix list (its REST views and page section too)
    api        REST views and serializers over everything below
    monitoring utilization snapshots judged against the plan (the rules and dashboard are exports)
    measurements  measured fiber test results: uploads judged against the test sheet, the standing (pages too)
    qos        a design's QoS policy pages and a revision's QoS configuration set (its configs.zip and report)
    exports    renderers and export jobs: read stored revisions
    designs    designs, revisions, their rows and the browser pages
    catalog    custom parts and versioned price lists
    jobs       the job table, the runner, quotas and the watchdog
    common     settings helpers, middleware, security headers, healthz

Imports that already point upward are listed in KNOWN_UPWARD, each with the app it reaches. The list only
shrinks: a new upward import fails `test_no_app_imports_a_layer_above_it`, and an entry that is no longer true
fails `test_the_known_upward_imports_are_still_there`, so the list stays an honest record of the debt. Issue 15,
item 4 paid off the designs -> api imports: custom parts and price lists live in the catalog app, measured
results in the measurements app, services raise domain errors (apps/common/errors.py) that the API maps, and
job kinds are registered from AppConfig.ready() (apps/jobs/registry.py). Issue 39 emptied the list: the QoS
feature is its own app above exports (apps/qos, which registers the worker's configs.zip report step with exports),
and the plan CLI is an exports command (it writes the exports' files). Imports inside functions count: a lazy import
is still a dependency. No two apps import each other either (`test_no_import_cycle_between_apps`; relative imports
are resolved too).
The revision workspace's sections come from a registry in common (apps/common/workspace.py) that each app fills from
its AppConfig.ready(), so no template {% load %}s a tag library of a layer above its own (the templates are checked
too: templates/<app>/ belongs to <app>). Nor does a page or module of a lower app name an upper app's URL: the design
page's buttons and the spec form's notes come from that registry too, and the page a finished job moves on to from
apps/jobs/registry.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = (
    "common",
    "jobs",
    "catalog",
    "designs",
    "exports",
    "qos",
    "measurements",
    "monitoring",
    "api",
    "commissioning",
    "counters",
    "alternatives",
)  # lowest first

KNOWN_UPWARD: dict[str, set[str]] = {}

# Templates live in templates/<owner>/...; a directory that is no app names the app whose views render it. The
# templates at the top (base.html, home.html, the error pages) are the project's shell, which sits above every app
# (fabricdesign/urls.py composes them): PROJECT.
PROJECT = "project"
TEMPLATE_OWNERS = {"accounts": "api", "registration": "common", "": PROJECT}
LOAD = re.compile(r"{%\s*load\s+([^%]*?)\s*%}")
# A URL named in a template ({% url 'qos:policy' ... %}) or in code ("qos:policy" for reverse/redirect) is a
# dependency on the app that serves it as surely as an import: a page of a lower app linking an upper app's page
# breaks when that app is left out. Upper apps contribute their links through registries instead
# (apps/common/workspace.py: design actions, form notes; apps/jobs/registry.py: job result pages).
URL_TAG = re.compile(r"{%\s*url\s+['\"]([A-Za-z0-9_-]+):")
URL_NAME = re.compile(r"[\"']([a-z][a-z0-9_-]*):[a-z][a-z0-9_]*[\"']")


def _package(path: Path, root: Path) -> list[str] | None:
    """The dotted package a module under root sits in (["apps", "qos"] for apps/qos/views.py); None outside root."""
    try:
        return list(path.relative_to(root).parent.parts)
    except ValueError:
        return None


def _imported_apps(path: Path, root: Path = ROOT) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    package = _package(path, root)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.ImportFrom) and node.level > 0 and package is not None:
            # `from ..designs import x` in apps/qos/... reaches apps.designs as surely as the absolute spelling.
            base = package[: len(package) - (node.level - 1)] if node.level - 1 <= len(package) else []
            if node.module:
                names = [".".join([*base, node.module])]
            else:
                names = [".".join([*base, alias.name]) for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "apps" and len(parts) > 1:
                found.add(parts[1])
    return found


def upward_imports() -> dict[str, set[str]]:
    """{file: apps above the file's own app that it imports}, for every module of a layered app."""
    rank = {app: i for i, app in enumerate(LAYERS)}
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "apps").rglob("*.py")):
        app = path.relative_to(ROOT / "apps").parts[0]
        if app not in rank or "migrations" in path.parts:
            continue
        above = {other for other in _imported_apps(path) if other in rank and rank[other] > rank[app]}
        if above:
            out[str(path.relative_to(ROOT))] = above
    return out


def tag_libraries() -> dict[str, str]:
    """{template tag library name: the app that defines it} (apps/<app>/templatetags/<name>.py)."""
    return {
        path.stem: path.relative_to(ROOT / "apps").parts[0]
        for path in (ROOT / "apps").glob("*/templatetags/*.py")
        if path.stem != "__init__"
    }


def _loaded_libraries(text: str) -> set[str]:
    """Library names of every {% load a b %} (and the libraries of {% load x from a %})."""
    found: set[str] = set()
    for args in LOAD.findall(text):
        words = args.split()
        found.update(words[words.index("from") + 1 :] if "from" in words else words)
    return found


def _ranks() -> dict[str, int]:
    """Each app's layer, the project's shell above them all."""
    return {**{app: i for i, app in enumerate(LAYERS)}, PROJECT: len(LAYERS)}


def _template_owner(rel: Path) -> str:
    top = rel.parts[0] if len(rel.parts) > 1 else ""
    return top if top in LAYERS else TEMPLATE_OWNERS.get(top, "common")


def url_namespaces(root: Path = ROOT / "apps") -> dict[str, str]:
    """{URL namespace: the app whose urls module declares it (app_name = "...")}."""
    found: dict[str, str] = {}
    for path in sorted(root.glob("*/*urls*.py")):
        for name in re.findall(r"^app_name\s*=\s*[\"']([^\"']+)[\"']", path.read_text(), re.M):
            found[name] = path.relative_to(root).parts[0]
    return found


def upward_template_loads(root: Path = ROOT / "templates") -> dict[str, set[str]]:
    """{template: apps above its owner whose tag library it loads}."""
    rank = _ranks()
    libraries = tag_libraries()
    out: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root)
        owner = _template_owner(rel)
        above = {
            libraries[lib]
            for lib in _loaded_libraries(path.read_text())
            if lib in libraries and rank[libraries[lib]] > rank[owner]
        }
        if above:
            out[str(rel)] = above
    return out


def upward_template_urls(root: Path = ROOT / "templates", namespaces: dict[str, str] | None = None) -> dict:
    """{template: apps above its owner whose URLs it names}."""
    rank, spaces = _ranks(), url_namespaces() if namespaces is None else namespaces
    out: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root)
        owner = _template_owner(rel)
        above = {spaces[n] for n in URL_TAG.findall(path.read_text()) if n in spaces and rank[spaces[n]] > rank[owner]}
        if above:
            out[str(rel)] = above
    return out


def upward_code_urls(namespaces: dict[str, str] | None = None) -> dict[str, set[str]]:
    """{module: apps above its own whose URL names it spells ("qos:policy" for reverse or redirect)}."""
    rank, spaces = _ranks(), url_namespaces() if namespaces is None else namespaces
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "apps").rglob("*.py")):
        app = path.relative_to(ROOT / "apps").parts[0]
        if app not in rank or "migrations" in path.parts:
            continue
        above = {spaces[n] for n in URL_NAME.findall(path.read_text()) if n in spaces and rank[spaces[n]] > rank[app]}
        if above:
            out[str(path.relative_to(ROOT))] = above
    return out


def test_no_page_names_a_url_of_a_layer_above_it():
    templates, code = upward_template_urls(), upward_code_urls()
    assert not templates, f"templates naming an upper layer's URLs (register a design action or form note): {templates}"
    assert not code, f"code naming an upper layer's URLs (register the page from that app): {code}"


def test_the_checker_sees_an_upward_url(tmp_path):
    (tmp_path / "designs").mkdir()
    (tmp_path / "designs" / "page.html").write_text(
        "<a href=\"{% url 'qos:policy' design.pk %}\">{% url 'designs:detail' 1 %}{% url \"admin:index\" %}</a>"
    )
    (tmp_path / "base.html").write_text("{% url 'qos:policy' 1 %}")
    spaces = {"qos": "qos", "designs": "designs"}
    assert upward_template_urls(tmp_path, spaces) == {"designs/page.html": {"qos"}}
    assert url_namespaces()["qos"] == "qos" and url_namespaces()["workspace"] == "designs"


def test_no_template_loads_a_tag_library_of_a_layer_above_it():
    found = upward_template_loads()
    assert not found, f"templates loading an upper layer's tags (register a workspace panel instead): {found}"


def test_the_checker_sees_an_upward_load(tmp_path):
    (tmp_path / "designs").mkdir()
    (tmp_path / "designs" / "page.html").write_text(
        "{% load fabric static %}\n{% load  counters %}{% load x from monitoring %}"
    )
    (tmp_path / "counters").mkdir()
    (tmp_path / "counters" / "ok.html").write_text("{% load fabric monitoring %}")
    assert upward_template_loads(tmp_path) == {"designs/page.html": {"counters", "monitoring"}}


def test_every_app_has_a_layer():
    apps = {p.name for p in (ROOT / "apps").iterdir() if (p / "__init__.py").is_file()}
    assert apps == set(LAYERS), "give a new app its place in LAYERS"


def test_no_app_imports_a_layer_above_it():
    new = {path: apps - KNOWN_UPWARD.get(path, set()) for path, apps in upward_imports().items()}
    new = {path: apps for path, apps in new.items() if apps}
    assert not new, f"imports of a layer above (move the code down, or pass it in from above): {new}"


def test_the_known_upward_imports_are_still_there():
    found = upward_imports()
    gone = {path: apps - found.get(path, set()) for path, apps in KNOWN_UPWARD.items()}
    gone = {path: apps for path, apps in gone.items() if apps}
    assert not gone, f"these upward imports are gone: remove them from KNOWN_UPWARD: {gone}"


def test_the_checker_sees_an_upward_import_inside_a_function(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from apps.api.errors import ApiError\n    import apps.exports.services\n")
    assert _imported_apps(module) == {"api", "exports"}


def app_import_graph() -> dict[str, set[str]]:
    """{app: the other apps its modules import}: every module of apps/, migrations and imports inside functions
    included (a lazy import is still an edge)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "apps").rglob("*.py")):
        parts = path.relative_to(ROOT / "apps").parts
        if len(parts) < 2:
            continue  # apps/__init__.py
        app = parts[0]
        graph.setdefault(app, set()).update(other for other in _imported_apps(path) if other != app)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of apps that reach each other through imports (strongly connected components of more than one
    app, or an app importing itself through the graph), each sorted; Tarjan's algorithm."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(app: str) -> None:
        index[app] = low[app] = len(index)
        stack.append(app)
        on_stack.add(app)
        for other in sorted(graph.get(app, ())):
            if other not in index:
                visit(other)
                low[app] = min(low[app], low[other])
            elif other in on_stack:
                low[app] = min(low[app], index[other])
        if low[app] == index[app]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == app:
                    break
            if len(group) > 1 or app in graph.get(app, ()):
                cycles.append(sorted(group))

    for app in sorted(graph):
        if app not in index:
            visit(app)
    return sorted(cycles)


def test_no_import_cycle_between_apps():
    graph = app_import_graph()
    cycles = import_cycles(graph)
    edges = {app: sorted(graph[app] & set(group)) for group in cycles for app in group}
    assert not cycles, f"apps that import each other (register from the upper app instead): {cycles}, edges {edges}"


def test_the_cycle_finder_sees_a_cycle_through_a_lazy_import(tmp_path):
    lazy = tmp_path / "health.py"
    lazy.write_text("def probe():\n    from apps.jobs.models import Job\n")
    assert _imported_apps(lazy) == {"jobs"}
    graph = {
        "common": {"jobs"},
        "jobs": {"common"},
        "designs": {"common", "exports"},
        "exports": {"designs", "jobs"},
        "api": {"designs"},
    }
    assert import_cycles(graph) == [["common", "jobs"], ["designs", "exports"]]
    assert import_cycles({"common": set(), "jobs": {"common"}, "designs": {"jobs", "common"}}) == []


def test_a_relative_import_across_apps_counts(tmp_path):
    # apps/qos/views.py spelling apps.designs.models as a relative import is still an edge qos -> designs
    (tmp_path / "apps" / "qos").mkdir(parents=True)
    module = tmp_path / "apps" / "qos" / "views.py"
    module.write_text("from ..designs.models import Design\nfrom .. import exports\nfrom .selectors import ARCHIVE\n")
    assert _imported_apps(module, root=tmp_path) == {"designs", "exports", "qos"}
