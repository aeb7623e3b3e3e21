"""The stored fix list as CSV text and as a PDF table (reportlab), landscape A4, one row per fix list row (a swap's
two cords one above the other in its cable cell)."""

from __future__ import annotations

import io

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Flowable, SimpleDocTemplate, Table, TableStyle

from apps.common.pdftext import paragraph
from engine.asbuilt.fixlist import FIX_COLUMNS
from engine.csvcells import csv_text


def fix_list_csv(fixes: list[dict]) -> str:
    """Neutralized (engine/csvcells.py): device and port names come from the as-built files, written by anyone."""
    return csv_text([FIX_COLUMNS, *([f.get(c, "") for c in FIX_COLUMNS] for f in fixes)])


def fix_list_pdf(fixes: list[dict], *, title: str) -> bytes:
    styles = getSampleStyleSheet()
    small = styles["BodyText"].clone("small", fontSize=7, leading=8)
    head = ["#", "class", "rack", "cable", "label A", "label B", "action"]
    rows = [head] + [
        [
            str(f["problem"]),
            f["class"],
            f["rack"],
            f["cable_id"].replace(" ", "\n"),
            paragraph(f["label_a"], small),
            paragraph(f["label_b"], small),
            paragraph(f["action"], small),
        ]
        for f in fixes
    ]
    table = Table(rows, colWidths=[20, 55, 55, 55, 140, 140, 330], repeatRows=1)
    table.setStyle(
        TableStyle(
            [
                ("FONTSIZE", (0, 0), (-1, -1), 7),
                ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ]
        )
    )
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=landscape(A4), title=title, leftMargin=20, rightMargin=20)
    story: list[Flowable] = [paragraph(title, styles["Heading2"])]
    story.append(table if fixes else paragraph("No problem left.", styles["BodyText"]))
    doc.build(story)
    return out.getvalue()
