"""People and permissions: accounts with roles, who owns a run, and who may do what with it.

`records` holds the typed records (`User`, the roles), `passwords` hashes and checks passwords
(Argon2id), `table` and `store` keep accounts in the installation's database next to the runs
(SQLite or PostgreSQL), `keys` keeps the LLM API key on the server, `permissions` states every
rule once as plain functions, and `access.UserRuns` is the run API as one user may use it: the
workbench and the CLI reach runs through it whenever the installation has accounts.
"""
