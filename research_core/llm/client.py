"""The one door to the LLM: chat-model factory per tier, cost recording, structured output.

Structured output uses JSON mode plus pydantic validation rather than `json_schema`, because
the embedded llama.cpp server rejects `json_schema`; on invalid output the model is asked
again with the validation error, and the caller decides the fallback when it still fails.
"""

from __future__ import annotations

import copy
import functools
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Literal, TypeVar

import openai
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, ValidationError

from research_core.configuration import DEFAULT_PRICING, OPENAI_DEFAULT_BASE_URL, LLMSettings
from research_core.errors import ArborError
from research_core.llm.abandon import unless_stopped
from research_core.llm.costs import call_cost, price_for, price_known
from research_core.schemas import CostEntry
from research_core.text.sanitize import strip_url_secrets, strip_url_secrets_in_text

logger = logging.getLogger(__name__)

Tier = Literal["work", "synthesis"]
T = TypeVar("T", bound=BaseModel)
TASK_HEADER = "X-Arbor-Task"


class LLMError(ArborError, RuntimeError):
    """An LLM call failed. `user_message` says what went wrong and what to do.

    Credentials in any URL of the message (user:password@, ?api_key=...) are removed, because the
    message is printed, logged, stored with the run and shown in the UI.
    """

    def __init__(self, user_message: str, costs: list[CostEntry] | None = None):
        super().__init__(strip_url_secrets_in_text(user_message))
        self.costs = costs or []


def _setup_error(message: str, exc: Exception) -> LLMError:
    """The one-line LLMError of a chat model that could not be set up (`message`, else the exception)."""
    message = message or f"The LLM could not be set up: {type(exc).__name__}: {exc}"
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return LLMError(lines[0] if lines else type(exc).__name__)


class StructuredOutputError(LLMError):
    """The model kept answering with JSON that does not fit the schema."""


class CallsStopped(KeyboardInterrupt):
    """The process is stopping (Ctrl-C, SIGTERM, SIGHUP): no new LLM call starts.

    A KeyboardInterrupt, so no node mistakes it for a failed call and writes a fallback answer:
    the step is abandoned, and a resume does it again.
    """


_STOPPING = threading.Event()


def stop_new_calls() -> None:
    """From now on every LLM call of this process raises CallsStopped; calls under way are abandoned."""
    _STOPPING.set()


def allow_new_calls() -> None:
    """Undo `stop_new_calls`."""
    _STOPPING.clear()


def extract_json_object(text: str) -> dict:
    """Parse the first JSON object in `text` (tolerates code fences and chatter around it)."""
    cleaned = re.sub(r"```(?:json)?", "", text).strip()
    try:
        value = json.loads(cleaned)
        if isinstance(value, dict):
            return value
    except json.JSONDecodeError:
        pass
    start = cleaned.find("{")
    if start < 0:
        raise ValueError("the answer contains no JSON object")
    decoder = json.JSONDecoder()
    value, _ = decoder.raw_decode(cleaned[start:])
    if not isinstance(value, dict):
        raise ValueError("the answer is not a JSON object")
    return value


def _describe_error(exc: Exception, base_url: str) -> str:
    base_url = strip_url_secrets(base_url)
    if isinstance(exc, openai.APITimeoutError):
        return f"The LLM at {base_url} did not answer in time. Try again, raise the timeout, or use a faster model."
    if isinstance(exc, openai.APIConnectionError):
        return f"Cannot reach the LLM at {base_url}. Check that the server is running or change the endpoint."
    if isinstance(exc, openai.AuthenticationError):
        return "The LLM endpoint rejected the API key. Set OPENAI_API_KEY or enter a valid key in Settings."
    if isinstance(exc, openai.NotFoundError):
        return f"The LLM endpoint at {base_url} does not know this model. Check the model name in Settings."
    if isinstance(exc, openai.RateLimitError):
        return "The LLM endpoint is rate-limiting requests even after retries. Wait a minute and resume the run."
    if isinstance(exc, openai.APIStatusError):
        return f"The LLM endpoint answered with HTTP {exc.status_code}. Resume the run later or change the endpoint."
    return f"The LLM call failed: {type(exc).__name__}: {exc}"


class LLMClient:
    """Chat models for the working and synthesis tiers, with cost and latency recording."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        api_key: str | None = None,
        pricing: Mapping[str, tuple[float, float]] | None = None,
        base_url_provider: Callable[[], str] | None = None,
    ):
        self.settings = settings
        self._api_key = api_key
        self.pricing = dict(pricing if pricing is not None else DEFAULT_PRICING)
        self._base_url_provider = base_url_provider
        self._models: dict[str, ChatOpenAI] = {}
        self._lock = threading.Lock()
        self._base_url: str | None = None
        self._stopped = threading.Event()

    def stop_calls(self) -> None:
        """From now on this client's calls raise CallsStopped, and calls under way are abandoned (their
        callers stop waiting for the reply). A drive stops its own `for_run` client, so the process's
        other runs go on."""
        self._stopped.set()

    def for_run(self) -> LLMClient:
        """This client for one run's drive: the same settings, connections and model server, with a stop
        of its own, so stopping one run leaves the other runs of the process (the workbench drives
        several with one client) calling the model."""
        run = copy.copy(self)
        run._stopped = threading.Event()
        return run

    def _calls_stopped(self) -> bool:
        """True once this client's calls, or every call of the process, are stopped."""
        return _STOPPING.is_set() or self._stopped.is_set()

    @property
    def is_local(self) -> bool:
        """True when the embedded local model serves the calls."""
        return self.settings.provider == "local"

    def base_url(self) -> str:
        """The endpoint's base URL, starting the embedded server on first use when local."""
        with self._lock:
            if self._base_url is None:
                if self.settings.base_url:
                    self._base_url = self.settings.base_url
                elif self._base_url_provider is not None:
                    self._base_url = self._base_url_provider()
                elif self.is_local:
                    from research_core.llm.local_model import get_shared_server

                    self._base_url = get_shared_server().start()
                else:
                    self._base_url = OPENAI_DEFAULT_BASE_URL
            return self._base_url

    def model_name(self, tier: Tier) -> str:
        """The model that serves `tier`."""
        return self.settings.synthesis_tier_model if tier == "synthesis" else self.settings.model

    def price(self, tier: Tier) -> tuple[float, float]:
        """USD per 1M tokens (input, output) of the model serving `tier`."""
        return price_for(self.model_name(tier), self.pricing, local=self.is_local)

    def unpriced_models(self) -> list[str]:
        """Paid models of this client whose price is not in the pricing table (they count as $0)."""
        names = dict.fromkeys(self.model_name(tier) for tier in ("work", "synthesis"))
        return [name for name in names if not price_known(name, self.pricing, local=self.is_local)]

    def _chat_model(self, tier: Tier) -> ChatOpenAI:
        base_url = self.base_url()
        with self._lock:
            if tier not in self._models:
                self._models[tier] = ChatOpenAI(
                    model=self.model_name(tier),
                    base_url=base_url,
                    api_key=self._api_key or "not-needed",
                    timeout=self.settings.timeout_s,
                    max_retries=self.settings.max_retries,
                    temperature=self.settings.temperature,
                )
            return self._models[tier]

    def _connect(self, tier: Tier) -> ChatOpenAI:
        """The chat model of `tier`; a model that cannot be started becomes a one-line LLMError."""
        try:
            return self._chat_model(tier)
        except LLMError:
            raise
        except ArborError as exc:  # e.g. LocalModelError: the embedded model is missing or broken
            raise _setup_error(exc.user_message, exc) from exc
        except Exception as exc:
            raise _setup_error("", exc) from exc

    def _invoke(
        self,
        task: str,
        messages: list[BaseMessage],
        *,
        tier: Tier,
        node: str,
        branch: str | None,
        json_schema: dict | None = None,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> tuple[str, CostEntry]:
        if self._calls_stopped():
            raise CallsStopped(f"not starting the {task} call: the run is stopping")
        model = self._connect(tier)
        kwargs: dict = {"extra_headers": {TASK_HEADER: task}}
        if json_mode:
            fmt: dict = {"type": "json_object"}
            if json_schema is not None:
                fmt["schema"] = json_schema  # llama.cpp extension: grammar-constrained JSON
            # Sent as a plain body field: given as `response_format`, LangChain routes the call
            # through the SDK's `parse` helper, which costs about 2 ms of CPU per call for nothing
            # JSON mode needs (bench/README.md section 1).
            kwargs["extra_body"] = {"response_format": fmt}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
            if self.is_local:
                # LangChain sends the cap as `max_completion_tokens`, which llama.cpp's server ignores;
                # without `max_tokens` a grammar-constrained answer can run on to the context size.
                kwargs["extra_body"] = {**kwargs.get("extra_body", {}), "max_tokens": max_tokens}
        started = time.perf_counter()
        try:
            reply = unless_stopped(
                lambda: model.invoke(messages, **kwargs),
                self._calls_stopped,
                lambda: CallsStopped(f"stopped waiting for the {task} call: the run is stopping"),
            )
        except Exception as exc:  # CallsStopped, a KeyboardInterrupt, goes through
            latency = time.perf_counter() - started
            failed = CostEntry(
                node=node, task=task, branch=branch, model=self.model_name(tier), latency_s=latency, ok=False
            )
            raise LLMError(_describe_error(exc, self._base_url or "?"), [failed]) from exc
        latency = time.perf_counter() - started
        text = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
        usage = getattr(reply, "usage_metadata", None) or {}
        tokens_in = int(usage.get("input_tokens") or sum(len(str(m.content)) for m in messages) // 4)
        tokens_out = int(usage.get("output_tokens") or len(text) // 4)
        entry = CostEntry(
            node=node,
            task=task,
            branch=branch,
            model=self.model_name(tier),
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            latency_s=round(latency, 4),
            cost_usd=call_cost(tokens_in, tokens_out, self.price(tier)),
        )
        return text, entry

    def complete(
        self,
        task: str,
        system: str,
        user: str,
        *,
        node: str,
        branch: str | None = None,
        tier: Tier = "work",
        max_tokens: int | None = None,
    ) -> tuple[str, CostEntry]:
        """Free-text completion. Raises LLMError (with the failed call's cost entry)."""
        messages: list[BaseMessage] = [SystemMessage(system), HumanMessage(user)]
        return self._invoke(task, messages, tier=tier, node=node, branch=branch, max_tokens=max_tokens)

    def structured(
        self,
        task: str,
        schema: type[T],
        system: str,
        user: str,
        *,
        node: str,
        branch: str | None = None,
        tier: Tier = "work",
        max_tokens: int | None = 1024,
    ) -> tuple[T, list[CostEntry]]:
        """Ask for JSON that validates against `schema`; re-ask with the error on invalid output.

        Returns the parsed object and the cost entries of every attempt. Raises
        StructuredOutputError (carrying those cost entries) when all attempts fail.
        """
        messages: list[BaseMessage] = [SystemMessage(system), HumanMessage(user)]
        costs: list[CostEntry] = []
        # Only the embedded llama.cpp server takes a schema in JSON mode; building it costs ~1 ms.
        json_schema = _json_schema(schema) if self.is_local else None
        last_error = ""
        for _attempt in range(self.settings.structured_retries + 1):
            try:
                text, entry = self._invoke(
                    task,
                    messages,
                    tier=tier,
                    node=node,
                    branch=branch,
                    json_schema=json_schema,
                    json_mode=True,
                    max_tokens=max_tokens,
                )
            except LLMError as exc:
                exc.costs = costs + exc.costs
                raise
            costs.append(entry)
            try:
                return schema.model_validate(extract_json_object(text)), costs
            except (ValueError, ValidationError) as exc:
                last_error = str(exc).splitlines()[0] if isinstance(exc, ValueError) else _short(exc)
                logger.info("invalid %s output (%s); asking again", task, last_error)
                messages = [
                    *messages,
                    AIMessage(text[:4000]),
                    HumanMessage(
                        f"That answer is not valid: {last_error}. Reply again with only the JSON object in the "
                        "format described."
                    ),
                ]
        raise StructuredOutputError(
            f"The model's {task} answer was not valid JSON for the expected format after "
            f"{self.settings.structured_retries + 1} attempts ({last_error}).",
            costs,
        )


@functools.cache
def _json_schema(schema: type[BaseModel]) -> dict:
    return schema.model_json_schema()


def _short(exc: ValidationError) -> str:
    parts = [f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:3]]
    return "; ".join(parts)


def client_for(
    settings: LLMSettings,
    *,
    api_key: str | None,
    pricing: Mapping[str, tuple[float, float]],
    progress: Callable[[str], None] | None = None,
) -> LLMClient:
    """The LLM client for `settings`; the local provider without a base URL starts the embedded server on first use."""
    provider = None
    if settings.provider == "local" and not settings.base_url:

        def provider() -> str:
            from research_core.llm.local_model import get_shared_server

            return get_shared_server(progress=progress).base_url

    return LLMClient(settings, api_key=api_key, pricing=pricing, base_url_provider=provider)
