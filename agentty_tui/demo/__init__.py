"""Demo MCP servers shipped with agentty_tui, to try the plugin manager without real plugins.

Each module is a standalone stdio MCP server (mcp 2.x), started as
``python -m agentty_tui.demo.<module>`` or through its console script, and each has a
``main()``:

- ``notes``    (``agentty-demo-notes``)    a small ordinary server: an in-memory notebook.
- ``toolsets`` (``agentty-demo-toolsets``) a Godot-editor-like server that keeps most tools
  behind toolsets (scene, script, animation) and reveals them at run time with
  ``enable_toolset``, sending ``notifications/tools/list_changed`` in both protocol eras.
- ``big``      (``agentty-demo-big``)      a "cloud API" server with 150 tools, more than the
  default tool budget of 128, to show trimming and the over-budget warning.

``mcp.example.json`` at the repository root wires all three (plus a deliberately broken
entry). The servers write nothing but protocol to stdout; logs go to stderr.
"""
