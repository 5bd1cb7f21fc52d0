"""UI strings of the site in the configured language (``zh`` or ``en``).

Templates call ``t("backlinks")``; a key missing in one language falls back to English, so a
new string can never break a build.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "html_lang": "en",
        "skip_to_content": "Skip to content",
        "home": "Home",
        "navigation": "Site navigation",
        "sources": "Sources",
        "graph": "Graph",
        "search": "Search",
        "search_placeholder": "Search the wiki…",
        "search_results": "Search results",
        "types": "Page types",
        "tags": "Tags",
        "type": "Type",
        "updated": "Updated",
        "contents": "Contents",
        "related": "Related pages",
        "page_sources": "Sources",
        "backlinks": "Pages that link here",
        "no_backlinks": "No page links here yet.",
        "neighbourhood": "Neighbourhood in the link graph",
        "more_neighbours": "and {n} more",
        "recently_updated": "Recently updated",
        "by_type": "Pages by type",
        "all_tags": "All tags",
        "pages_count": "{n} pages",
        "wiki_pages": "wiki pages",
        "source_pages": "source pages",
        "home_intro": "A knowledge base of {wiki} wiki pages and {sources} source pages, "
        "with their links, sources and tested code.",
        "tag_title": "Tag: {tag}",
        "type_title": "Type: {type}",
        "sources_title": "Source archive",
        "graph_title": "Link graph",
        "graph_help": "Drag to pan, scroll or use the buttons to zoom, hover a node for its "
        "title, click to open it.",
        "graph_find": "Find a page in the graph",
        "zoom_in": "Zoom in",
        "zoom_out": "Zoom out",
        "zoom_reset": "Reset view",
        "graph_noscript": "The graph needs JavaScript; every page also shows its neighbourhood.",
        "not_found_title": "Page not found",
        "not_found_text": "There is no page at this address. It may have been renamed or removed.",
        "back_home": "Back to the home page",
        "show_code": "Show code",
        "show_output": "Show output",
        "output": "Output",
        "figure_alt": "Figure {n} produced by the code cell at line {line}",
        "cell_skipped": "This cell is not executed.",
        "cell_not_run": "This cell has not been run.",
        "cell_raised": "Raised, as expected:",
        "math_error": "formula shown as TeX: it could not be converted",
        "built_with": "Built by kbtool",
        "summary": "Summary",
        "untitled_type": "(no type)",
        "alert_note": "Note",
        "alert_tip": "Tip",
        "alert_important": "Important",
        "alert_warning": "Warning",
        "alert_caution": "Caution",
    },
    "zh": {
        "html_lang": "zh-CN",
        "skip_to_content": "跳到正文",
        "home": "首页",
        "navigation": "站点导航",
        "sources": "来源",
        "graph": "图谱",
        "search": "搜索",
        "search_placeholder": "搜索知识库…",
        "search_results": "搜索结果",
        "types": "页面类型",
        "tags": "标签",
        "type": "类型",
        "updated": "更新于",
        "contents": "目录",
        "related": "相关页面",
        "page_sources": "来源",
        "backlinks": "链接到本页的页面",
        "no_backlinks": "还没有页面链接到这里。",
        "neighbourhood": "链接图谱中的邻近页面",
        "more_neighbours": "另有 {n} 个",
        "recently_updated": "最近更新",
        "by_type": "按类型浏览",
        "all_tags": "全部标签",
        "pages_count": "{n} 页",
        "wiki_pages": "篇知识页",
        "source_pages": "篇来源",
        "home_intro": "本知识库收录 {wiki} 篇知识页与 {sources} 篇来源资料，"
        "页面之间的链接、出处与可执行代码都经过检查。",
        "tag_title": "标签：{tag}",
        "type_title": "类型：{type}",
        "sources_title": "来源档案",
        "graph_title": "链接图谱",
        "graph_help": "拖动平移，滚轮或按钮缩放，悬停查看标题，点击打开页面。",
        "graph_find": "在图谱中查找页面",
        "zoom_in": "放大",
        "zoom_out": "缩小",
        "zoom_reset": "复位",
        "graph_noscript": "图谱需要 JavaScript；每个页面也会显示它的邻近页面。",
        "not_found_title": "页面不存在",
        "not_found_text": "这个地址没有页面，它可能已被改名或删除。",
        "back_home": "返回首页",
        "show_code": "显示代码",
        "show_output": "显示输出",
        "output": "输出",
        "figure_alt": "第 {line} 行代码单元生成的图 {n}",
        "cell_skipped": "此单元不执行。",
        "cell_not_run": "此单元尚未运行。",
        "cell_raised": "按预期抛出异常：",
        "math_error": "公式无法转换，按 TeX 原文显示",
        "built_with": "由 kbtool 生成",
        "summary": "摘要",
        "untitled_type": "（无类型）",
        "alert_note": "备注",
        "alert_tip": "提示",
        "alert_important": "重要",
        "alert_warning": "警告",
        "alert_caution": "注意",
    },
}


@cache
def translator(language: str) -> Callable[..., str]:
    """``t(key, **values)`` for ``language``, falling back to English for missing keys."""
    table = {**STRINGS["en"], **STRINGS.get(language, {})}

    def t(key: str, **values: object) -> str:
        text = table.get(key, key)
        return text.format(**values) if values else text

    return t
