//! The LLM behind `--llm`: its client, set up from the command line, and its failures said
//! in the command line's terms.

use super::{Args, LlmKind};
use anyhow::bail;
use navigator_context::{Error, HeuristicPolicy, LlmPolicy, Policy};
use navigator_core::{
    AnthropicClient, AnthropicConfig, HttpOptions, Llm, LlmErrorKind, OpenAiClient, OpenAiConfig,
    Pricing, PricingTable,
};
use std::sync::Arc;
use std::time::Duration;

/// `--llm-timeout`: a positive number of seconds.
pub(super) fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x > 0.0 && Duration::try_from_secs_f64(x).is_ok() => Ok(x),
        Ok(_) => Err("the timeout is a positive number of seconds, like 30".into()),
        Err(_) => Err(format!("`{s}` is not a number of seconds (like 30)")),
    }
}

/// The timeouts and retries of the LLM client: the defaults, with `--llm-timeout` as the
/// limit of each request.
fn http_options(args: &Args) -> HttpOptions {
    let mut http = HttpOptions::default();
    if let Some(secs) = args.llm_timeout {
        // parse_seconds let through only what converts.
        http.timeout = Duration::try_from_secs_f64(secs).unwrap_or(http.timeout);
    }
    http
}

/// Refuses `--base-url`, `--model` and `--llm-timeout` that nothing would use, and base URLs
/// that are not http(s).
pub(super) fn check_llm_flags(args: &Args) -> anyhow::Result<()> {
    if args.llm == LlmKind::None && (args.base_url.is_some() || args.model.is_some()) {
        return Err(super::Usage("--base-url and --model choose the LLM of --llm openai or --llm anthropic; with --llm none (the default) nothing would use them".into()).into());
    }
    if args.llm == LlmKind::None && args.usd.is_some() {
        return Err(super::Usage("--usd caps what --llm openai or --llm anthropic spends; with --llm none (the default) nothing is spent, so it would cap nothing".into()).into());
    }
    if args.llm == LlmKind::None && args.llm_timeout.is_some() {
        return Err(super::Usage("--llm-timeout limits the requests of --llm openai or --llm anthropic; with --llm none (the default) nothing would use it".into()).into());
    }
    if let Some(url) = &args.base_url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(super::Usage(format!("--base-url {url}: not an http:// or https:// URL (a local server: http://127.0.0.1:8765/v1)")).into());
        }
    }
    Ok(())
}

/// A failed exploration, said in the command line's terms: a timeout names the limit and
/// the flag that sets it.
pub(super) fn explained(e: Error, args: &Args) -> anyhow::Error {
    let Error::Core(navigator_core::Error::LlmApi {
        kind: LlmErrorKind::Timeout,
        attempts,
        ..
    }) = &e
    else {
        return e.into();
    };
    let secs = http_options(args).timeout.as_secs_f64();
    let server = match &args.base_url {
        Some(url) => format!("the LLM server at {url}"),
        None => "the LLM server".to_string(),
    };
    let message = format!(
        "{server} did not answer within {secs} s ({attempts} attempt(s)); check that it is serving, or give a slow model more time with --llm-timeout SECS"
    );
    anyhow::Error::new(e).context(message)
}

/// The policy `args` ask for.
pub(crate) fn policy(args: &Args) -> anyhow::Result<Box<dyn Policy>> {
    check_llm_flags(args)?;
    let priced = |model: &str, local: bool| {
        let mut prices = PricingTable::default();
        if local || prices.get(model).is_err() {
            // A local server costs nothing; an unknown hosted model would be priced wrongly,
            // so it is refused below unless it runs at a base URL the user gave.
            prices.set(model.to_string(), Pricing::free());
        }
        prices
    };
    Ok(match args.llm {
        LlmKind::None => Box::new(HeuristicPolicy::new()),
        LlmKind::Anthropic => {
            let model = args
                .model
                .clone()
                .unwrap_or_else(|| "claude-sonnet-4-5".into());
            let mut config = AnthropicConfig::new(&model).with_http(http_options(args));
            if let Some(url) = &args.base_url {
                config = config.with_base_url(url);
            }
            if args.base_url.is_none() && PricingTable::default().get(&model).is_err() {
                bail!("--model {model}: no price known for it, so --usd could not be enforced");
            }
            let client: Arc<dyn Llm> = Arc::new(AnthropicClient::new(config)?);
            Box::new(LlmPolicy::new(
                client,
                priced(&model, args.base_url.is_some()),
            ))
        }
        LlmKind::Openai => {
            let (config, model) = match &args.base_url {
                Some(url) => {
                    let model = args.model.clone().unwrap_or_else(|| "local".into());
                    (OpenAiConfig::compatible(url, &model), model)
                }
                None => {
                    let model = args.model.clone().unwrap_or_else(|| "gpt-5-mini".into());
                    if PricingTable::default().get(&model).is_err() {
                        bail!("--model {model}: no price known for it, so --usd could not be enforced");
                    }
                    (OpenAiConfig::openai(&model), model)
                }
            };
            let client: Arc<dyn Llm> =
                Arc::new(OpenAiClient::new(config.with_http(http_options(args)))?);
            Box::new(LlmPolicy::new(
                client,
                priced(&model, args.base_url.is_some()),
            ))
        }
    })
}
