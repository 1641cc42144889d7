"""The campaign's report: the model read from a result and its commits (model.py, facts.py), the SVG charts
(chart.py), the self-contained HTML page (html.py), and the text, JSON and HTML renderings (render.py).

It lives inside the campaign because the engine writes it after every run and it reads the campaign's
records: from a sibling package, its `import core.campaign.model` would run `core/campaign/__init__.py`,
which imports the engine, which imports the report back.
"""
