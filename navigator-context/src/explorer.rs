//! The explorer: a loop of turns (scan → analyse → refine → repeat) from the satellite view to
//! a context window that fits the token budget, without ever spending past the USD budget.

use crate::error::{Error, Result};
use crate::fill::fill_unspent;
use crate::flight_plan::{FlightPlan, Level, Rule};
use crate::pack::fit;
use crate::policy::{apply, Action, Policy, TurnInput};
use crate::relevance::{rank, Scored};
use crate::render::render;
use crate::report::{build_prompt, goal_section, Approver, DecisionLog, TurnReport, Verdict};
use crate::scan::RepoMap;
use crate::tokens::Tokenizer;
use std::collections::HashMap;
use std::fmt::Write;

/// Limits of one exploration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budgets {
    /// The most tokens the final context may take.
    pub tokens: usize,
    /// The most USD the policy may spend (`None`: no limit).
    pub usd: Option<f64>,
    /// The most turns.
    pub max_turns: usize,
}

impl Budgets {
    /// A token budget, no USD limit, eight turns.
    pub fn tokens(tokens: usize) -> Self {
        Budgets {
            tokens,
            usd: None,
            max_turns: 8,
        }
    }

    /// Adds a USD limit.
    pub fn with_usd(mut self, usd: f64) -> Self {
        self.usd = Some(usd);
        self
    }
}

/// Why the exploration stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum StopReason {
    /// The policy finalised the context.
    Finalized,
    /// The next turn's projected cost would have passed the USD budget.
    UsdBudget {
        /// Spent so far.
        spent: f64,
        /// Conservative projection of the next turn.
        projected: f64,
        /// The budget.
        budget: f64,
    },
    /// The turn limit was reached.
    MaxTurns,
    /// The approver declined to go on.
    Declined,
    /// Nothing in the repository matched the goal (found by the first scan).
    NothingRelevant,
    /// The policy failed: an LLM call that errs on every retry (a window too small for the
    /// map, a timeout, a server gone) after at least one turn had been decided, or, at any
    /// turn, a model that answered every try with no valid action. The context is the one the
    /// earlier turns built. A call failing on the first turn is returned as the error.
    PolicyFailed {
        /// The turn that failed.
        step: usize,
        /// Why.
        message: String,
    },
}

impl StopReason {
    /// One sentence.
    pub fn describe(&self) -> String {
        match self {
            StopReason::Finalized => "the policy finalised the context".into(),
            StopReason::UsdBudget { spent, projected, budget } => format!(
                "stopped before the next turn: ${spent:.4} spent + ${projected:.4} projected would pass the ${budget:.4} budget"
            ),
            StopReason::MaxTurns => "the turn limit was reached".into(),
            StopReason::Declined => "the approver declined to continue".into(),
            StopReason::NothingRelevant => {
                "nothing in the repository matches the goal's terms (after the first scan); the context is the repository's overview".into()
            }
            StopReason::PolicyFailed { step: 1, message } => format!(
                "the policy failed at turn 1 ({message}); the context is the first scan's map"
            ),
            StopReason::PolicyFailed { step, message } => format!(
                "the policy failed at turn {step} ({message}); the context is the one the turns before it built"
            ),
        }
    }
}

/// Everything an exploration delivers.
#[derive(Debug, Clone)]
pub struct Exploration {
    /// The final context.
    pub context: String,
    /// Its size in tokens.
    pub tokens: usize,
    /// The Flight Plan that regenerates `context` exactly.
    pub plan: FlightPlan,
    /// Why areas were zoomed in or excluded, as Markdown.
    pub reasoning: String,
    /// One report per turn.
    pub turns: Vec<TurnReport>,
    /// The decision log.
    pub log: DecisionLog,
    /// Why it stopped.
    pub stop: StopReason,
    /// USD spent by the policy.
    pub usd: f64,
    /// The offline ranking the fit used as file values, best first.
    pub ranking: Vec<Scored>,
    /// Set when even the essential files do not fit the budget: what was left out.
    pub best_effort: Option<String>,
}

impl Exploration {
    /// Total prompt tokens with state-over-history and with the full history fed each turn.
    pub fn prompt_tokens(&self) -> (usize, usize) {
        self.turns.iter().fold((0, 0), |(s, h), t| {
            (s + t.prompt_tokens, h + t.history_prompt_tokens)
        })
    }
}

/// Explores a repository for a goal.
///
/// ```no_run
/// use navigator_context::{Budgets, Explorer, HeuristicPolicy, RepoMap};
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let map = RepoMap::open(".")?;
/// let out = Explorer::new(&map, Budgets::tokens(10_000))
///     .explore("Refactor the auth middleware", &mut HeuristicPolicy::new())
///     .await?;
/// println!("{}\n{}", out.context, out.plan.to_yaml(&[]));
/// # Ok::<(), navigator_context::Error>(()) }).unwrap();
/// ```
pub struct Explorer<'a> {
    map: &'a RepoMap,
    budgets: Budgets,
    tokenizer: Tokenizer,
    approver: Option<Box<dyn Approver + 'a>>,
    fill: bool,
}

impl<'a> Explorer<'a> {
    /// An autonomous explorer.
    pub fn new(map: &'a RepoMap, budgets: Budgets) -> Self {
        Explorer {
            map,
            budgets,
            tokenizer: Tokenizer::default(),
            approver: None,
            fill: true,
        }
    }

    /// Whether a context the policy leaves under three quarters of the token budget is filled
    /// from the offline ranking (on by default): the ranking's packed plan is added for the
    /// files no rule of the policy matches, so a model that finalises early (a small local
    /// one often does on the satellite view) still hands over a context that spends the
    /// budget, while every file a policy rule matches keeps the policy's choice. Not done
    /// when an approver declined.
    pub fn fill_unspent(mut self, on: bool) -> Self {
        self.fill = on;
        self
    }

    /// Counts tokens with `tokenizer`.
    pub fn tokenizer(mut self, tokenizer: Tokenizer) -> Self {
        self.tokenizer = tokenizer;
        self
    }

    /// Interactive mode: `approver` reviews every turn.
    pub fn interactive(mut self, approver: impl Approver + 'a) -> Self {
        self.approver = Some(Box::new(approver));
        self
    }

    /// Runs turns until the policy finalises, a budget stops it, or the approver declines.
    pub async fn explore(&mut self, goal: &str, policy: &mut dyn Policy) -> Result<Exploration> {
        let b = self.budgets;
        if b.tokens == 0 {
            return Err(Error::InvalidOption {
                field: "tokens".into(),
                message: "the token budget must be at least 1".into(),
            });
        }
        if let Some(usd) = b.usd.filter(|u| !(u.is_finite() && *u >= 0.0)) {
            return Err(Error::InvalidOption {
                field: "usd".into(),
                message: format!("{usd} is not a non-negative amount"),
            });
        }
        if goal.trim().is_empty() {
            return Err(Error::InvalidOption {
                field: "goal".into(),
                message: "the goal is empty".into(),
            });
        }
        let mut ranking = rank(self.map, goal);
        let mut values: HashMap<String, f64> =
            ranking.iter().map(|s| (s.path.clone(), s.score)).collect();
        let mut plan = coarse_satellite(self.map, goal, b.tokens, self.tokenizer)?;
        let initial_rules = plan.rules.clone();
        let mut log = DecisionLog::default();
        let mut turns = Vec::new();
        let mut feedback: Option<String> = None;
        let mut spent = 0.0;
        let mut history = 0usize;
        let mut stop = if ranking.is_empty() {
            StopReason::NothingRelevant
        } else {
            StopReason::MaxTurns
        };
        let (goal_tokens, goal_bytes) = {
            let section = goal_section(goal);
            (self.tokenizer.count(&section), section.len())
        };
        let mut step = 0;
        while stop == StopReason::MaxTurns && step < b.max_turns {
            step += 1;
            let current = render(self.map, &plan)?;
            let view = render(self.map, &prompt_view(&plan))?;
            let prompt = build_prompt(goal, &view.text, &log, feedback.as_deref(), b.tokens);
            // The goal's section is the same every turn: a pasted log is counted once.
            let prompt_tokens = goal_tokens + self.tokenizer.count(&prompt[goal_bytes..]);
            let input = TurnInput {
                step,
                goal,
                prompt: &prompt,
                map: self.map,
                plan: &plan,
                current: &current,
                log: &log,
                ranking: &ranking,
                feedback: feedback.as_deref(),
                usd_left: b.usd.map(|u| u - spent),
            };
            let projected = policy.projected_usd(&input)?;
            if let Some(budget) = b.usd {
                if spent + projected > budget {
                    stop = StopReason::UsdBudget {
                        spent,
                        projected,
                        budget,
                    };
                    break;
                }
            }
            let decision = match policy.decide(&input).await {
                Ok(decision) => decision,
                // The first turn's failure is most likely the setup (a key, an address): an
                // error. A later one keeps what the turns before it built.
                Err(e) if step > 1 => {
                    stop = StopReason::PolicyFailed {
                        step,
                        message: e.to_string(),
                    };
                    break;
                }
                Err(e) => return Err(e),
            };
            // The history a chat transcript would carry: every earlier prompt and answer again.
            let answer_tokens = self
                .tokenizer
                .count(&serde_json::to_string(&decision.action).unwrap_or_default());
            history += prompt_tokens;
            let history_prompt_tokens = history;
            history += answer_tokens;
            spent += decision.usd;
            if let Action::UpdateFlightPlan { changes, .. } = &decision.action {
                apply(&mut plan, changes, policy.name(), step)?;
                plan = fit(self.map, plan, &values)?.plan;
            }
            log.push(decision.action.log_entry(step));
            let after = render(self.map, &plan)?;
            let report = TurnReport {
                step,
                action: decision.action.name().to_string(),
                turn_usd: decision.usd,
                total_usd: spent,
                map_tokens: after.tokens,
                token_budget: b.tokens,
                focus: focus(&after, &values),
                prompt_tokens,
                history_prompt_tokens,
                reasoning: decision.action.reasoning().to_string(),
            };
            feedback = None;
            if let Some(message) = decision.gave_up {
                stop = StopReason::PolicyFailed { step, message };
            } else if let Action::FinalizeContext { .. } = decision.action {
                stop = StopReason::Finalized;
            }
            if let Some(approver) = self.approver.as_mut() {
                match approver.review(&report) {
                    Verdict::Approve => {}
                    Verdict::Decline => stop = StopReason::Declined,
                    Verdict::Feedback(text) => {
                        // Feedback widens the goal the offline ranking sees, and reaches the policy.
                        ranking = rank(self.map, &format!("{goal} {text}"));
                        values = ranking.iter().map(|s| (s.path.clone(), s.score)).collect();
                        if matches!(
                            stop,
                            StopReason::Finalized | StopReason::PolicyFailed { .. }
                        ) {
                            stop = StopReason::MaxTurns;
                        }
                        feedback = Some(text);
                    }
                }
            }
            turns.push(report);
        }
        if stop == StopReason::NothingRelevant {
            // No file to rank: the goal-less overview spends the budget on the repository's
            // shape (folders, files, outlines) rather than leaving it at the first map.
            let blank = FlightPlan {
                rules: Vec::new(),
                ..plan.clone()
            };
            plan = crate::overview::overview(self.map, goal, b.tokens, blank)?;
        }
        let mut filled = None;
        if self.fill && stop != StopReason::Declined {
            if let Some((more, what)) = fill_unspent(self.map, &plan, &initial_rules, &ranking)? {
                plan = more;
                filled = Some(what);
            }
        }
        let mut fitted = fit(self.map, plan, &values)?;
        fitted.plan = rank_order(self.map, fitted.plan, &values);
        fitted.rendered = render(self.map, &fitted.plan)?;
        fitted.plan = crate::replay::pin(self.map, fitted.plan)?;
        let best_effort = best_effort_note(self.map, &fitted, &ranking);
        let mut reasoning = summary(
            goal,
            &fitted.rendered,
            &ranking,
            &fitted.degraded,
            &stop,
            &log,
            best_effort.as_deref(),
        );
        if let Some(f) = filled {
            let _ = write!(
                reasoning,
                "\nThe policy's context took {} of {} tokens: {} rules of the offline ranking's \
                 packed plan filled the rest, for files no rule of the policy matched.\n",
                f.before, b.tokens, f.rules
            );
        }
        Ok(Exploration {
            context: fitted.rendered.text,
            tokens: fitted.rendered.tokens,
            plan: fitted.plan,
            reasoning,
            turns,
            log,
            stop,
            usd: spent,
            ranking,
            best_effort,
        })
    }
}

/// The goal-less overview of `map` within `tokens`, breadth first: folders as counted lines,
/// opened shallowest first while the budget allows (their files as paths); once every path is
/// listed, top-level outlines, shallowest files first, until the budget is spent.
///
/// ```no_run
/// use navigator_context::{render, satellite, RepoMap, Tokenizer};
/// let map = RepoMap::open(".")?;
/// let plan = satellite(&map, "overview", 10_000, Tokenizer::default())?;
/// print!("{}", render(&map, &plan)?.text);
/// # Ok::<(), navigator_context::Error>(())
/// ```
pub fn satellite(
    map: &RepoMap,
    goal: &str,
    tokens: usize,
    tokenizer: Tokenizer,
) -> Result<FlightPlan> {
    let mut plan = FlightPlan::new(goal, tokens);
    plan.tokenizer = tokenizer;
    plan.validate()?;
    crate::overview::overview(map, goal, tokens, plan)
}

/// The explorer's first map: top-level signatures of every file if that fits `tokens`, else
/// every path, else one line per top-level directory with its file count. One rule, so the
/// policy's first zoom replaces it whole.
fn coarse_satellite(
    map: &RepoMap,
    goal: &str,
    tokens: usize,
    tokenizer: Tokenizer,
) -> Result<FlightPlan> {
    let mut plan = FlightPlan::new(goal, tokens);
    plan.tokenizer = tokenizer;
    plan.validate()?;
    for (level, collapse) in [
        (Level::TopLevel, false),
        (Level::Path, false),
        (Level::Path, true),
    ] {
        plan.rules = vec![Rule {
            collapse,
            ..Rule::new("**", level)
        }];
        // Every shown file costs at least one token (its path line), so a map with more files
        // than the budget cannot fit file by file: skip rendering (and parsing) it at all.
        let floor = map.files().len() + plan.tokenizer.count(&crate::render::header(&plan));
        if !collapse && floor > plan.token_budget {
            continue;
        }
        if level == Level::TopLevel {
            map.outline_all();
        }
        if collapse || render(map, &plan)?.tokens <= plan.token_budget {
            break;
        }
    }
    Ok(plan)
}

/// `plan` with its exact-file rules last and most relevant first, so the context shows the
/// files in rank order; other rules keep their order (it breaks ties between equal globs).
fn rank_order(map: &RepoMap, mut plan: FlightPlan, values: &HashMap<String, f64>) -> FlightPlan {
    let (mut files, globs): (Vec<Rule>, Vec<Rule>) = plan
        .rules
        .into_iter()
        .partition(|r| map.file(&r.path).is_some());
    let value = |r: &Rule| values.get(&r.path).copied().unwrap_or(0.0);
    files.sort_by(|a, b| {
        value(b)
            .total_cmp(&value(a))
            .then(b.level.cmp(&a.level))
            .then(a.path.cmp(&b.path))
    });
    plan.rules = globs;
    plan.rules.extend(files);
    plan
}

/// What the policy is shown of a plan: the same map with full source (whole files and focused
/// items) folded to signatures.
/// Deciding where to zoom needs the shape of the code, not its bodies; the delivered context
/// still has them, and the prompt says so.
fn prompt_view(plan: &FlightPlan) -> FlightPlan {
    let mut view = plan.clone();
    for r in &mut view.rules {
        r.level = r.level.min(Level::Signatures);
        r.focus.clear();
    }
    view
}

/// Files at signatures or full source, best first (at most eight).
fn focus(r: &crate::render::Rendered, values: &HashMap<String, f64>) -> Vec<String> {
    let mut f: Vec<(&String, f64)> = r
        .levels
        .iter()
        .filter(|(_, l)| *l >= Level::Signatures)
        .map(|(p, _)| (p, values.get(p).copied().unwrap_or(0.0)))
        .collect();
    f.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    f.into_iter().take(8).map(|(p, _)| p.clone()).collect()
}

fn best_effort_note(
    map: &RepoMap,
    fitted: &crate::pack::Fitted,
    ranking: &[Scored],
) -> Option<String> {
    if !fitted.fits {
        return Some(format!(
            "the token budget ({}) is smaller than the context header and directory lines alone ({} tokens)",
            fitted.plan.token_budget, fitted.rendered.tokens
        ));
    }
    let top = ranking.first()?;
    let level = fitted.rendered.level_of(&top.path);
    if level >= Level::TopLevel {
        return None;
    }
    // A file that no budget could show with content says why, not "does not fit".
    let file = map.file(&top.path)?;
    let limit =
        crate::render::why_limited(file, Level::TopLevel, false, fitted.plan.huge_file_bytes);
    Some(match limit {
        Some(why) => format!(
            "the most relevant file `{}` is shown as its path: {why}",
            top.path
        ),
        None => format!(
            "the most relevant file `{}` does not fit the budget even as an outline; it is shown at level {level}",
            top.path
        ),
    })
}

fn summary(
    goal: &str,
    r: &crate::render::Rendered,
    ranking: &[Scored],
    degraded: &[(String, Level)],
    stop: &StopReason,
    log: &DecisionLog,
    best_effort: Option<&str>,
) -> String {
    let mut s = format!(
        "# Reasoning\n\nGoal: {goal}\n\nStopped: {}.\n",
        stop.describe()
    );
    if let Some(note) = best_effort {
        let _ = writeln!(s, "\n**Best effort:** {note}.");
    }
    let _ = writeln!(s, "\n## Zoomed in\n");
    let mut any = false;
    for sc in ranking.iter().take(40) {
        let level = r.level_of(&sc.path);
        if level >= Level::TopLevel {
            any = true;
            let why = if sc.reasons.is_empty() {
                "weak signals only (common words, the directory the goal names, the reference graph)".to_string()
            } else {
                sc.reasons.join("; ")
            };
            let _ = writeln!(
                s,
                "- `{}` at level {level} (relevance {:.2}): {why}",
                sc.path, sc.score
            );
        }
    }
    if !any {
        let _ = writeln!(
            s,
            "- nothing: no file scored high enough to show more than its path"
        );
    }
    let _ = writeln!(s, "\n## Zoomed out\n");
    let shown_below: usize = r.levels.iter().filter(|(_, l)| *l <= Level::Path).count();
    let _ = writeln!(s, "- {shown_below} files shown as paths, in collapsed directory lines, or hidden: no match for the goal, or lower relevance than what fit the budget");
    for (p, l) in degraded.iter().take(20) {
        let _ = writeln!(s, "- `{p}` lowered to level {l} to fit the token budget");
    }
    let _ = writeln!(s, "\n## Decision log\n\n{}", log.render());
    s
}
