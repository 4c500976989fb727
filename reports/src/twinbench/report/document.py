"""A report as a list of blocks, written out by two Jinja2 templates (templates/report.md.j2 and
report.html.j2, a self-contained page) so that report.md and report.html cannot drift apart. The report's order is render.build_document's (the place for the progress
table and the hardware-counter paragraphs, after the summary, is marked there).
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from typing import ClassVar

import jinja2


@dataclass
class Heading:
    kind: ClassVar[str] = "heading"
    text: str
    level: int = 2


@dataclass
class Link:
    """A link at the end of a paragraph; Markdown and HTML may point to different files (the
    other report's report.md and report.html)."""
    label: str
    md_href: str
    html_href: str = ""


@dataclass
class Paragraph:
    kind: ClassVar[str] = "paragraph"
    text: str
    # Notes are things the reader must not miss (GPU skipped, partial run).
    note: bool = False
    link: Link | None = None
    # The report's answer in a sentence (headline.py): set larger, read first.
    lead: bool = False


@dataclass
class Table:
    kind: ClassVar[str] = "table"
    headers: list[str]
    rows: list[list[str]]
    # Narrow tables (the first screen's) wrap inside the page: no scroll box of their own.
    fit: bool = False


@dataclass
class Detail:
    """One folded item: a title and its (label, value) lines."""
    title: str
    fields: list[tuple[str, str]]


@dataclass
class Details:
    """Per-item detail that HTML folds (<details>, closed) and Markdown lists (a nested list):
    the columns the first screen's table leaves out."""
    kind: ClassVar[str] = "details"
    items: list[Detail]


@dataclass
class BulletList:
    kind: ClassVar[str] = "list"
    items: list[str]


@dataclass
class Image:
    kind: ClassVar[str] = "image"
    title: str
    filename: str
    png: bytes = field(repr=False, default=b"")
    # False where a heading right above already names the image: the HTML caption would
    # repeat it.
    caption: bool = True


Block = Heading | Paragraph | Table | BulletList | Image | Details


def _md_cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("twinbench.report", "templates"), autoescape=False,
    trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
# html.escape, as the reports always wrote (markupsafe writes &#39; and &#34; for ' and ").
_TEMPLATES.filters.update(md=_md_cell, e=lambda text: html.escape(str(text)),
                          base64=lambda png: base64.b64encode(bytes(png)).decode("ascii"))


def to_markdown(blocks: list[Block]) -> str:
    return _TEMPLATES.get_template("report.md.j2").render(blocks=blocks).removesuffix("\n")


def to_html(blocks: list[Block], title: str, embed_images: bool = True) -> str:
    """The blocks as one HTML page. embed_images=False links each chart to its PNG file beside
    the page instead of embedding it: a committed report then keeps its charts as files and the
    page stays small (a default run's embedded page is ~4.7 MB)."""
    return _TEMPLATES.get_template("report.html.j2").render(
        blocks=blocks, title=title, embed=embed_images).removesuffix("\n")
