"""``kbtool build``: the build as its stages, each a module of this package, in order;
:func:`kbtool.build.site.build_site` runs them.

1. :mod:`~kbtool.build.scan`: read every file once, with its content digest;
   then :mod:`~kbtool.build.unchanged`: with nothing changed since the last build, stop here;
2. :mod:`~kbtool.build.load`: pages from the store, or parsed by the
   :mod:`~kbtool.build.pageworker` (page, body with holes, search text, once) in the run's
   :mod:`~kbtool.build.workers`;
3. :mod:`~kbtool.build.check` and 4. :mod:`~kbtool.build.cells`: the gate; an error or a
   failing cell stops the build here, and ``site/`` is not touched;
5. :mod:`~kbtool.build.plan`: every output with a key of what it depends on, fresh or stale;
6. :mod:`~kbtool.build.render`: in a staging folder, reuse the fresh outputs, render the stale;
7. :mod:`~kbtool.build.search`: the search index, updated from the live site's;
8. :mod:`~kbtool.build.publish`: swap the staging folder in, record what it holds
   (:mod:`~kbtool.build.published`), all under the build lock (:mod:`~kbtool.build.lock`).
"""
