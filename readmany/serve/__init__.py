"""`readmany mcp`'s tools: the commands served to an agent over the Model Context Protocol.

`config` is what a server serves, `roots` where its paths may lead, `schemas` the tools'
input schemas and the checking of a call's arguments, `tools` the tools themselves (each
builds its command's request and runs the command's own code, without the SDK), and
`server` the SDK's low-level server on stdio, the one module that imports the SDK.
"""
