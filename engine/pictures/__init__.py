"""Pictures as SVG, drawn by our own code (standard library only).

    svg.py      what every picture shares: number formatting and text escaping
    trees.py    search trees: a small tree layout, SVG and Graphviz DOT writers
                (``tree --svg``, ``picture``)
    charts.py   line and bar charts (``lineemup report``, ``nqueens table --svg``)
"""
