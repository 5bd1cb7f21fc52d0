"""Turn a file's bytes into a :class:`~kbtool.model.Page`, once.

``parse.page.parse_page`` is the entry point; ``parse.slugs`` the one slug function. Nothing is
imported here, so that a fully cached run never loads markdown-it.
"""
