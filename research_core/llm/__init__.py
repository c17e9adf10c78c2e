"""The one LLM door: the chat client, the embedded model server, costs and prompt loading."""
