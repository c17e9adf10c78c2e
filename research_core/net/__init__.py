"""Shared network leaves: bounded HTTP transfers for the page fetcher and the HTTP search backends."""
