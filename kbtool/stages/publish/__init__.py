"""Stage 8, publish: the staging folder (:mod:`.staging`), the swap that puts it in place of
``site/`` (:mod:`.swap`), the record of what the live site holds (:mod:`.published`), the
former site ``kbtool serve`` keeps as the next staging folder (:mod:`.spare`), all under the
build lock (:mod:`.lock`).
"""
