"""A retelling may not turn what a manual says is possible into what it recommends."""

from research_core.synthesis.added_advice import added_advice
from research_core.synthesis.grounding import ground_text

MOD_PROXY = {
    "title": "mod_proxy - Apache HTTP Server Version 2.4",
    "url": "/usr/share/doc/apache2-doc/manual/en/mod/mod_proxy.html",
    "snippet": "",
}
QUOTES = [
    "A reverse proxy is activated using the ProxyPass directive or the [P] flag to the RewriteRule directive.",
    "Reverse proxies can also be used to balance load among several back-end servers or to provide caching for a "
    "slower back-end server.",
]
TOPIC = "When should I use ProxyPass rather than a RewriteRule with the [P] flag?"
NAMES = ("ProxyPass", "mod_proxy", "mod_rewrite")


def test_a_possibility_retold_as_the_manual_s_advice_is_replaced_by_the_quote():
    text = (
        "The manual recommends using ProxyPass for balancing load among several back-end servers or providing "
        "caching for a slower back-end server [[src:p]]."
    )
    out = ground_text(text, {"p": MOD_PROXY}, {"p": QUOTES}, NAMES, TOPIC)
    assert "recommends" not in out.text
    assert out.quoted == 1 and out.text.startswith("Reverse proxies can also be used to balance load")


def test_advice_the_quotes_give_passes():
    quotes = [
        "Prior to PostgreSQL version 9.1, a request for the Serializable transaction isolation level provided "
        "exactly the same behavior described here.",
        "To retain the legacy Serializable behavior, Repeatable Read should now be requested.",
    ]
    clause = (
        "Prior to PostgreSQL version 9.1, the Serializable isolation level provided exactly the same behavior "
        "described here, so Repeatable Read should now be requested"
    )
    assert added_advice(clause, quotes) is None
    assert added_advice("Reverse proxies can be used to balance load among several back-end servers", QUOTES) is None
