"""The live page (`--web`): the checkpoint, Kafka's offsets and the verdict, moving in a browser.

`scenarios demo --web` and `scenarios run NAMES --web` serve one page on 127.0.0.1 at a port
they print; it updates itself by server-sent events as the app crashes and restarts. The page
is another view of what the demo's screen and the stage's listeners already have: the demo's
readings (scenarios/demo/readings.py), the stage's events and timeline, drawn with the report's
own SVG renderer. It never writes into a checkpoint; its one write is stepping a guided run.

The modules, from the bottom: `options.py` (the command-line flags), `guard.py` (which Host and
which peer may ask), `view.py` (what the page shows, as data, and its HTML), `demo_page.py`
(the demo's state as a view), `run_page.py` (a listener of the stage: a run's steps as a view),
`stepping.py` (the Enter of --guided, from the terminal or the page), `server.py` (aiohttp in a
thread of its own). Page: docs/web.md.

Usage:
    with LiveServer(WebChoice(), title="demo") as server:
        server.publish(render_fragment(demo_view(state, timeline)))
"""

__all__: list[str] = []
