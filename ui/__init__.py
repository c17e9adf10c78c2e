"""Shared pieces of the Streamlit workbench: services, session state, settings and widgets."""
