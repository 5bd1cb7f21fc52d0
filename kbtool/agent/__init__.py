"""``kbtool mcp``: the checked wiki as Model Context Protocol tools for the agents that write it.

The tools' work is done here without the protocol (:mod:`kbtool.agent.server` alone imports
the SDK): :class:`~kbtool.agent.state.AgentWiki` holds one session for the server's life, as
``kbtool serve`` and ``kbtool lsp`` do, and each tool is a function of it that answers a
pydantic model or raises :class:`~kbtool.agent.errors.Refused` with a message a model can act
on.
"""
