"""Exports of a finished run (markdown, html, json, ...) and the sanitising of untrusted text."""
