"""Read the acceptance report's DOM (as Chromium rendered it): elements with their attributes and text."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID_TAGS = frozenset({"img", "br", "meta", "link", "input", "hr", "source", "col", "wbr"})


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    parent: Element | None = None
    text_parts: list[str] = field(default_factory=list)
    children: list[Element] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.text_parts).strip()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Element]:
        found = []
        for child in self.children:
            if (tag is None or child.tag == tag) and all(child.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                found.append(child)
            found.extend(child.find_all(tag, **attrs))
        return found

    def by_id(self, element_id: str) -> Element:
        (found,) = self.find_all(id=element_id)
        return found


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(element)
        if tag not in VOID_TAGS:
            self.current = element

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        node: Element | None = self.current
        while node is not None:
            node.text_parts.append(data)
            node = node.parent


def parse_dom(html: str) -> Element:
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root
