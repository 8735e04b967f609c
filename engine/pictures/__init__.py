"""Pictures as SVG, drawn by our own code (standard library only), and the stepper page.

    svg.py              what every picture shares: number formatting
    trees.py            search trees: a small tree layout, SVG and Graphviz DOT writers
                        (``tree --svg``, ``picture``)
    charts.py           line and bar charts (``lineemup report``, ``nqueens table --svg``)
    stepper.py          the stepper: one offline page replaying a search (``--html``)
    stepper_listing.py  a Take-Stones listing read from a stepper recording
    assets/             the skeletons, styles and script the above fill
                        (read with engine.markup.asset)

Markup is built with :mod:`engine.markup`, which escapes every value by default.
"""
