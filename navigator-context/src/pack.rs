//! Spending a token budget: packing a ranking into a Flight Plan, and fitting any plan into
//! its budget by degrading the lowest-value files first.
//!
//! Packing gives full source to the few files that matter most, outlines to the next ones and
//! paths to the rest, then tops up until the context is within a few percent of the budget.
//! Fitting is the safety net every plan passes through (heuristic or LLM-made): it renders
//! exactly, and while the context is over budget it lowers the least valuable file one level.

use crate::capped::{entries, GoalWords};
use crate::error::Result;
use crate::flight_plan::{FlightPlan, Level, Rule};
use crate::relevance::Scored;
use crate::render::{effective_level, file_block, header, render, shaped_block, Rendered};
use crate::scan::RepoMap;
use crate::zoom::ItemQuery;
use std::collections::HashMap;

/// Bytes a token for the estimate of a whole source too large to count
/// ([`crate::tokens::MAX_BYTES_PER_TOKEN`]).
const BYTES_PER_TOKEN_ESTIMATE: u64 = 4;

/// Full source is given to at most this many files (more at large budgets,
/// [`TOKENS_PER_FULL`]) ...
const MAX_FULL: usize = 6;
/// ... each scoring at least this share of the best file ...
const FULL_SCORE: f64 = 0.35;
/// ... together taking at most this share of the budget (the rest keeps the map wide) ...
const FULL_SHARE: f64 = 0.7;
/// ... except the first file, which may take this share on its own, clear of the next or not:
/// the file a task is about is worth more whole than its neighbours' outlines, and the best
/// guess is likelier to be it than the files after it (cutting an unclear first file over 70 %
/// to its items left weaker files whole in its place) ...
const FIRST_SHARE: f64 = 0.85;
/// ... or more, all the budget but the path lines of this many next candidates and the
/// (capped) top-level outlines of the first [`RESERVE_FILES`] of them: a file that fits whole is
/// shown whole rather than cut into items for the outlines of the long tail, but never at the
/// cost of the outlines of the files ranked just after it, in case it is the wrong one.
const PATH_RESERVE_FILES: usize = 20;
/// The first file is clear when the next one scores at most this share of it.
const CLEAR_GAP: f64 = 0.8;
/// The first this many files may share the first file's share at full source when the top-level
/// outlines of the next [`RESERVE_FILES`] candidates still fit beside them: two close
/// candidates shown whole beat one whole and one outlined, as long as the map stays wide.
/// So may any candidate cheap whole ([`CHEAP_SHARE`]): a third file of 850 tokens beside two
/// taking 70 % is worth more than the signatures of the tail.
const PAIR: usize = 2;
/// Past the zoom, a large budget's whole files may take all but this many tokens, which keep
/// the outlines and paths of the long tail (at 30k tokens, 70 % left the 8th file an outline
/// beside the outlines of files ranked 100th and lower) ...
const TAIL_TOKENS: usize = 6000;
/// ... and one of the first ranked files may be whole per this many tokens of budget (at
/// least [`MAX_FULL`]).
const TOKENS_PER_FULL: usize = 3000;
/// Only one file too big to show whole is zoomed into, the best one: zooming into the next
/// ones took the outlines of the candidates further down (gold files shown fell on dev).
const MAX_ZOOMED: usize = 1;
/// A zoomed file that is not clearly first (the next one scores over [`CLEAR_GAP`] of it) gets
/// at most this share of the budget.
const UNCLEAR_ZOOM_SHARE: f64 = 0.25;
/// ... or this share when the goal points into one of its items (names it as code, has a
/// trace frame in it, quotes its message).
const POINTED_ZOOM_SHARE: f64 = 0.5;
/// The best file zoomed first leaves room for the next candidates (up to [`MAX_FULL`]) that
/// are cheap whole — each at most this share of the budget (a cheap file also shares the
/// first file's share, like the second of a [`PAIR`]) ...
const CHEAP_SHARE: f64 = 0.1;
/// ... together at most this share.
const CHEAP_TOTAL_SHARE: f64 = 0.3;
/// The best file zoomed first also leaves room for the next file whole when it scores at
/// least this (of the best's 1.0) ...
const RUNNER_UP_SCORE: f64 = 0.6;
/// ... and is whole within this share of the budget: a clear first file otherwise filled its
/// whole share with its weaker items and left a close second, often the other file to change,
/// as an outline.
const RUNNER_UP_SHARE: f64 = 0.35;

/// The files a frame of the goal's trace lies in, other than those whole or zoomed into, get
/// the functions of their frames when ranked among the first this many ...
const FRAME_RANKS: usize = 10;
/// ... at most this many of them ...
const MAX_FRAME_FILES: usize = 2;
/// ... each within this share of the budget.
const FRAME_ZOOM_SHARE: f64 = 0.15;

/// Zooming keeps room for the top-level outlines of this many next candidates ...
const RESERVE_FILES: usize = 10;
/// ... taking at most this share of the budget.
const RESERVE_SHARE: f64 = 0.2;
/// Files below this score get no outline.
const OUTLINE_SCORE: f64 = 0.05;
/// Files at or above this score get docs and nested signatures.
const SIGNATURES_SCORE: f64 = 0.25;
/// A candidate's outline is capped (`max_items`) to about this many tokens when packing
/// shows the candidates breadth first: one long outline must not push the next candidates
/// down to their paths. The top-up lifts the cap when the budget allows.
const OUTLINE_CAP: usize = 100;

/// Package roots get top-level outlines from at most this share of the budget ...
const ROOTS_SHARE: f64 = 0.05;
/// ... and at most this many of them.
const MAX_ROOTS: usize = 6;

/// A package root near the top of the repository: `src/lib.rs`, `core/src/lib.rs`,
/// `pkg/__init__.py`, `src/index.ts` (at most three path segments deep).
fn is_package_root(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.split('/').count() <= 3
        && (is_root_name(name) || name == "main.rs")
        && !crate::relevance::is_auxiliary(path)
}

/// Whether a file of this name is the root of its folder's module or package
/// (`__init__.py`, `mod.rs`, `lib.rs`, `index.ts`, `index.js`).
pub(crate) fn is_root_name(name: &str) -> bool {
    matches!(
        name,
        "lib.rs" | "__init__.py" | "index.ts" | "index.js" | "mod.rs"
    )
}

/// No file block is smaller than this; below it the budget is spent.
const MIN_BLOCK: usize = 3;

/// Token costs of file blocks, counted once.
pub(crate) struct Costs<'a> {
    map: &'a RepoMap,
    plan: &'a FlightPlan,
    memo: HashMap<(usize, Level, Option<u32>), usize>,
    /// Items shown at full source inside a file's outline, per file.
    focus: HashMap<usize, Vec<String>>,
    /// Outline entries shown at most, per file (`max_items`).
    limits: HashMap<usize, u32>,
    /// The goal's words, which choose the entries of a capped outline.
    goal: std::sync::Arc<GoalWords>,
    /// Whether documents (Markdown, TOML: outlined, no code grammar) count as their paths at
    /// the outline levels: the packer's choices, where a ranked document's headings would
    /// take the room of code outlines. A plan's own rules (`fit`) show their outlines.
    docs_as_paths: bool,
    /// A document exempt from `docs_as_paths`: the best-ranked file, when it is one.
    outlined_doc: Option<usize>,
}

impl<'a> Costs<'a> {
    /// Costs of the files as `plan`'s exact-path rules zoom into them.
    pub(crate) fn new(map: &'a RepoMap, plan: &'a FlightPlan) -> Self {
        let mut costs = Costs::bare(map, plan);
        for r in &plan.rules {
            let Some(i) = costs.index(&r.path) else {
                continue;
            };
            if !r.focus.is_empty() {
                costs.focus.insert(i, r.focus.clone());
            }
            if let Some(m) = r.max_items {
                costs.limits.insert(i, m);
            }
        }
        costs
    }

    /// Costs of the files with no zoom into items.
    fn bare(map: &'a RepoMap, plan: &'a FlightPlan) -> Self {
        Costs {
            map,
            plan,
            memo: HashMap::new(),
            focus: HashMap::new(),
            limits: HashMap::new(),
            goal: GoalWords::shared(&plan.goal),
            docs_as_paths: false,
            outlined_doc: None,
        }
    }

    /// Zooms file `i` into `focus` (its outline levels' costs change).
    fn set_focus(&mut self, i: usize, focus: Vec<String>) {
        self.memo.retain(|(j, _, _), _| *j != i);
        self.focus.insert(i, focus);
    }

    /// Takes back file `i`'s zoom.
    fn clear_focus(&mut self, i: usize) {
        self.memo.retain(|(j, _, _), _| *j != i);
        self.focus.remove(&i);
    }

    /// Caps (`Some`) or uncaps file `i`'s outline.
    fn set_limit(&mut self, i: usize, limit: Option<u32>) {
        match limit {
            Some(m) => self.limits.insert(i, m),
            None => self.limits.remove(&i),
        };
    }

    /// The most outline entries of file `i` whose top-level block costs at most `tokens`
    /// (at least one); `None` when its whole outline does, or it has a single entry.
    fn cap_for(&mut self, i: usize, tokens: usize) -> Option<u32> {
        self.cap_at(i, Level::TopLevel, tokens)
    }

    /// [`Costs::cap_for`] for the outline at `level` (top-level or all signatures).
    fn cap_at(&mut self, i: usize, level: Level, tokens: usize) -> Option<u32> {
        let whole = self.cost_with(i, level, None).0;
        let n = entries(&self.map.files()[i], level).len() as u32;
        if whole <= tokens || n <= 1 {
            return None;
        }
        let last = n - 1;
        // Costs grow with the entries kept, about in proportion: start from the proportional
        // count, gallop to bracket the largest within `tokens`, then halve the bracket (a
        // few renders even for a class of thousands of methods).
        let guess = (u64::from(n) * tokens as u64 / whole.max(1) as u64) as u32;
        let m = guess.clamp(1, last);
        let fits = |m: u32, c: &mut Self| c.cost_with(i, level, Some(m)).0 <= tokens;
        // `lo` fits (0: none known), `hi` does not (`last + 1`: none known).
        let (mut lo, mut hi) = if fits(m, self) { (m, last + 1) } else { (0, m) };
        let mut step = 1;
        if lo > 0 {
            while lo + step < hi {
                if fits(lo + step, self) {
                    lo += step;
                    step *= 2;
                } else {
                    hi = lo + step;
                    break;
                }
            }
        } else {
            while hi > 1 {
                let next = hi.saturating_sub(step).max(1);
                if fits(next, self) {
                    lo = next;
                    break;
                }
                hi = next;
                step *= 2;
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid, self) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo.max(1))
    }

    fn index(&self, path: &str) -> Option<usize> {
        self.map
            .files()
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
    }

    /// The level file `i` is asked for when the packer wants `level`: a document's path
    /// instead of its outline when documents count as paths.
    fn asked(&self, i: usize, level: Level) -> Level {
        let doc = self.map.files()[i].lang.is_none() && self.outlined_doc != Some(i);
        if self.docs_as_paths && doc && matches!(level, Level::TopLevel | Level::Signatures) {
            Level::Path
        } else {
            level
        }
    }

    /// Tokens file `i` costs when asked for at `level` (after caps), and the level it gets.
    pub(crate) fn cost(&mut self, i: usize, level: Level) -> (usize, Level) {
        let limit = self.limits.get(&i).copied();
        self.cost_with(i, level, limit)
    }

    /// [`Costs::cost`] with `limit` outline entries at most.
    fn cost_with(&mut self, i: usize, level: Level, limit: Option<u32>) -> (usize, Level) {
        let file = &self.map.files()[i];
        let level = self.asked(i, level);
        let level = effective_level(file, level, true, self.plan.huge_file_bytes);
        // A file of many times the budget in bytes cannot be shown whole (it would take over
        // `MAX_BYTES_PER_TOKEN` bytes a token): its whole source is estimated, not counted
        // (counting the tokens of a few 600 KB bundles took most of a 5-second run). The
        // estimate is over the budget too, so every choice it enters comes out the same.
        let ceiling = (self.plan.token_budget as u64)
            .saturating_mul(crate::tokens::MAX_BYTES_PER_TOKEN as u64);
        if level == Level::Full && file.size > ceiling {
            let estimate =
                usize::try_from(file.size / BYTES_PER_TOKEN_ESTIMATE).unwrap_or(usize::MAX);
            return (estimate.max(self.plan.token_budget + 1), level);
        }
        let limit = limit.filter(|_| matches!(level, Level::TopLevel | Level::Signatures));
        let tok = self.plan.tokenizer;
        let focus = self.focus.get(&i).map_or(&[][..], Vec::as_slice);
        let goal: &GoalWords = &self.goal;
        let c = *self
            .memo
            .entry((i, level, limit))
            .or_insert_with(|| shaped_block(file, level, focus, limit.map(|m| (m, goal)), tok).1);
        (c, level)
    }

    /// Raises file `i` from `level` one step when the step's tokens fit in `remaining` (and
    /// takes them): a capped outline to the next level whole, else to its whole outline; a
    /// file asked for as an outline that has nothing to outline to full source; any other
    /// file to the next level. The level it is at after, `None` when nothing changed.
    fn raise(&mut self, i: usize, level: Level, remaining: &mut usize) -> Option<Level> {
        if level == Level::Full || level == Level::Hidden {
            return None;
        }
        let (now, shown) = self.cost(i, level);
        let limit = self.limits.get(&i).copied();
        let take = |cost: usize, remaining: &mut usize| {
            let step = cost.saturating_sub(now);
            let fits = step <= *remaining;
            if fits {
                *remaining -= step;
            }
            fits
        };
        // The first level above that shows more than `shown`: full source for a file
        // without an outline that was worth one (a path stays a path).
        let mut up = Level::ALL[level as usize + 1];
        let (next, got) = loop {
            let (next, got) = self.cost_with(i, up, None);
            if got > shown || up == Level::Full || level < Level::TopLevel {
                break (next, got);
            }
            up = Level::ALL[up as usize + 1];
        };
        if got > level && take(next, remaining) {
            self.set_limit(i, None);
            return Some(got);
        }
        let m = limit?;
        if level < Level::TopLevel {
            // A path whose capped outline did not fit: the capped outline.
            let (next, got) = self.cost_with(i, up, Some(m));
            return (got > level && take(next, remaining)).then_some(got);
        }
        let whole = self.cost_with(i, level, None).0;
        if take(whole, remaining) {
            self.set_limit(i, None);
            return Some(level);
        }
        None
    }

    /// Whether file `i`, asked for at `level`, shows no outline there (its path) and costs
    /// over `tokens` whole: [`Costs::raise`] would take it to full source in one step.
    fn jumps_past(&mut self, i: usize, level: Level, tokens: usize) -> bool {
        level >= Level::TopLevel
            && level < Level::Full
            && self.cost(i, level).1 < Level::TopLevel
            && self.cost(i, Level::Full).0 > tokens
    }

    /// Raises file `i` at a whole top-level outline to all signatures capped to what
    /// `remaining` holds (and takes the tokens): for a file whose signatures alone outgrow
    /// the budget (one class of thousands of methods), when nothing else could be raised; a
    /// capped top-level outline keeps more of its entries instead. The level it is at after,
    /// `None` when nothing changed.
    fn raise_capped(&mut self, i: usize, level: Level, remaining: &mut usize) -> Option<Level> {
        if level != Level::TopLevel {
            return None;
        }
        let (now, shown) = self.cost(i, level);
        if shown != Level::TopLevel || *remaining < MIN_BLOCK {
            return None;
        }
        // A capped top-level outline (whole, it outgrows what is left): more of its entries.
        if let Some(&m) = self.limits.get(&i) {
            let more = self.cap_for(i, now + *remaining)?;
            let c = self.cost_with(i, level, Some(more)).0;
            if more <= m || c <= now || c > now + *remaining {
                return None;
            }
            *remaining -= c - now;
            self.set_limit(i, Some(more));
            return Some(level);
        }
        let m = self.cap_at(i, Level::Signatures, now + *remaining)?;
        let (c, got) = self.cost_with(i, Level::Signatures, Some(m));
        if got != Level::Signatures || c <= now || c > now + *remaining {
            return None;
        }
        *remaining -= c - now;
        self.set_limit(i, Some(m));
        Some(got)
    }
}

/// A plan for `ranking` that fills `plan.token_budget` as well as it can; `plan` gives goal,
/// budget, tokenizer and caps, its rules are replaced.
pub(crate) fn pack(map: &RepoMap, ranking: &[Scored], plan: &FlightPlan) -> FlightPlan {
    let budget = plan.token_budget;
    let mut costs = Costs::bare(map, plan);
    costs.docs_as_paths = true;
    let top_dirs = map
        .files()
        .iter()
        .map(|f| f.path.split_once('/').map_or("./", |(d, _)| d))
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    // Collapsed directory lines ("src/ (12 files)") cost about eight tokens each.
    let overhead = plan.tokenizer.count(&header(plan)) + 8 * top_dirs;
    let mut remaining = budget.saturating_sub(overhead);
    let mut chosen: Vec<(usize, Level)> = Vec::new();
    let ranked: Vec<(usize, f64)> = ranking
        .iter()
        .filter_map(|s| costs.index(&s.path).map(|i| (i, s.score)))
        .collect();
    // A document the goal is most about shows its headings when it cannot be whole.
    costs.outlined_doc = ranked.first().map(|&(i, _)| i);
    let mut full_used = 0;
    let clear = ranked.get(1).is_none_or(|&(_, s)| s <= CLEAR_GAP);
    // The first file's share: [`FIRST_SHARE`], or all but the next candidates' outlines and
    // path lines.
    let next: usize = ranked
        .iter()
        .skip(1)
        .take(PATH_RESERVE_FILES)
        .enumerate()
        .map(|(n, &(j, _))| {
            let path = costs.cost(j, Level::Path).0;
            if n < RESERVE_FILES {
                path.max(costs.cost(j, Level::TopLevel).0.min(OUTLINE_CAP))
            } else {
                path
            }
        })
        .sum();
    let first_share = ((budget as f64 * FIRST_SHARE) as usize).max(remaining.saturating_sub(next));
    let max_full = max_full(budget);
    let share_of = |k: usize| {
        if k == 0 {
            first_share
        } else {
            (budget as f64 * FULL_SHARE) as usize
        }
    };
    let mut too_big: Vec<(usize, usize)> = Vec::new();
    // The best file, too big to show whole, is zoomed into before any weaker file is given
    // full source: its items are likelier to be the code to change than a weaker file whole
    // (zoomed last, it got what the whole files left, often nothing). It keeps room for the
    // outlines of the next candidates, for the next ones that are cheap whole and for a close
    // second whole ([`RUNNER_UP_SCORE`]); a clear first file may take its whole share, an
    // unclear one [`UNCLEAR_ZOOM_SHARE`]. The files it kept room for are `promised` that room.
    let mut promised: Vec<usize> = Vec::new();
    let cheap_max = (budget as f64 * CHEAP_SHARE) as usize;
    let first_zoomed = ranked.first().and_then(|&(i, score)| {
        let (c, level) = costs.cost(i, Level::Full);
        if score < FULL_SCORE
            || level != Level::Full
            || fits_whole(
                &mut costs,
                &ranked,
                (0, true),
                c,
                (0, remaining),
                (share_of(0), first_share),
            )
        {
            return None;
        }
        let reserve = reserve_for(&mut costs, &ranked, &[(i, Level::TopLevel)], budget);
        let cheap_total = (budget as f64 * CHEAP_TOTAL_SHARE) as usize;
        let mut cheap = 0;
        for &(j, s) in ranked.iter().skip(1).take(MAX_FULL - 1) {
            let (c, l) = costs.cost(j, Level::Full);
            if s >= SIGNATURES_SCORE && l == Level::Full && c <= cheap_max {
                if cheap + c <= cheap_total {
                    promised.push(j);
                }
                cheap += c;
            }
        }
        let cheap = cheap.min(cheap_total);
        // A close second too big to count as cheap (a cheap one is counted above).
        let runner_up = ranked
            .get(1)
            .filter(|&&(_, s)| s >= RUNNER_UP_SCORE)
            .map(|&(j, _)| (j, costs.cost(j, Level::Full)))
            .filter(|&(_, (c, l))| {
                l == Level::Full && c > cheap_max && c <= (budget as f64 * RUNNER_UP_SHARE) as usize
            })
            .map_or(0, |(j, (c, _))| {
                promised.push(j);
                c
            });
        // An unclear first file the goal points into (names one of its items as code, has a
        // frame of its trace in it, quotes a message it raises) may take more: the item it
        // names, too big for the unclear share, lost its place to weaker items of the file.
        let query = ItemQuery::new(&plan.goal);
        let pointed = !clear && query.points_into(&map.files()[i]);
        let cap = if clear {
            1.0
        } else if pointed {
            POINTED_ZOOM_SHARE
        } else {
            UNCLEAR_ZOOM_SHARE
        };
        let allowed = remaining
            .saturating_sub(reserve + cheap + runner_up)
            .min(share_of(0))
            .min((budget as f64 * cap) as usize);
        // A zoom that needs a rescue (see [`zoom`]) is not worth it when the second file
        // would be whole in its place, unless a frame of the goal's trace is in one of the
        // file's functions: the code that failed is worth more than a weaker file whole.
        let failed_here = query.frame_into(&map.files()[i]);
        let rescue = failed_here
            || ranked.get(1).is_none_or(|&(j, s)| {
                let (c, level) = costs.cost(j, Level::Full);
                s < FULL_SCORE
                    || level != Level::Full
                    || !fits_whole(
                        &mut costs,
                        &ranked,
                        (1, true),
                        c,
                        (0, remaining),
                        (share_of(1), first_share),
                    )
            });
        zoom(&mut costs, map, plan, i, (allowed, rescue)).map(|c| (i, c))
    });
    if let Some((i, c)) = first_zoomed {
        full_used += c;
        remaining -= c.min(remaining);
        chosen.push((i, Level::TopLevel));
    }
    // Whether the `k`-th ranked file is shown whole (taking its tokens), or too big to be.
    let whole = |costs: &mut Costs,
                 chosen: &mut Vec<(usize, Level)>,
                 (full_used, remaining): (&mut usize, &mut usize),
                 (k, share): (usize, usize)|
     -> Whole {
        let (i, score) = ranked[k];
        if score < FULL_SCORE {
            return Whole::Below;
        }
        let (c, level) = costs.cost(i, Level::Full);
        if first_zoomed.is_some_and(|(z, _)| z == i) || level != Level::Full {
            return Whole::Passed;
        }
        // A cheap file may join the first two past [`FULL_SHARE`] on the same terms.
        let cheap = c <= cheap_max;
        // A file the zoom kept room for is whole while the next outlines keep theirs.
        let kept_for = first_zoomed.is_some() && promised.contains(&i) && {
            let mut with = chosen.clone();
            with.push((i, Level::Full));
            c + reserve_for(costs, &ranked, &with, budget) <= *remaining
        };
        if kept_for
            || fits_whole(
                costs,
                &ranked,
                (k, k < PAIR || cheap),
                c,
                (*full_used, *remaining),
                (share, first_share),
            )
        {
            *full_used += c;
            *remaining -= c;
            chosen.push((i, Level::Full));
            return Whole::Shown;
        }
        Whole::TooBig
    };
    for (k, &(i, _)) in ranked.iter().enumerate().take(MAX_FULL) {
        let spent = (&mut full_used, &mut remaining);
        match whole(&mut costs, &mut chosen, spent, (k, share_of(k))) {
            Whole::Below => break,
            Whole::TooBig => too_big.push((k, i)),
            Whole::Shown | Whole::Passed => {}
        }
    }
    // A weaker file too big to show whole (when the best one was not zoomed into): zoom in on
    // the items the goal is about, inside its outline, with what the whole files left of its
    // share, keeping room for the outlines of the next candidates (a file shown only by its
    // path is not found).
    // The best file's own zoom, when it was passed over for a second file whole, comes first
    // here, with what that file left: shown by a capped outline alone, the file the goal is
    // most about told less than any candidate outlined after it.
    let reserve = reserve_for(&mut costs, &ranked, &chosen, budget);
    let mut zoomed_before = usize::from(first_zoomed.is_some());
    for &(k, i) in too_big
        .iter()
        .filter(|&&(k, _)| k > 0 || first_zoomed.is_none())
    {
        if zoomed_before >= MAX_ZOOMED {
            break;
        }
        let allowed = allowance(remaining, reserve, share_of(k), full_used, budget);
        if let Some(c) = zoom(&mut costs, map, plan, i, (allowed, true)) {
            full_used += c;
            remaining -= c.min(remaining);
            chosen.push((i, Level::TopLevel));
            zoomed_before += 1;
        } else if k > 0 {
            // As before: the one weaker file tried is the zoom's turn, zoomed or not.
            zoomed_before += 1;
        }
    }
    // The other files a frame of the goal's trace lies in (the outer frames: the caller that
    // passed the bad value, the route that registered it): the functions of their frames.
    zoom_frames(&mut costs, map, plan, &ranked, &mut chosen, &mut remaining);
    // A large budget shows more files whole, after the zoom (whose items are worth more):
    // those that were too big for [`FULL_SHARE`], then the next ones.
    let share = full_share(budget);
    for (k, &(i, _)) in ranked.iter().enumerate().take(max_full) {
        if chosen.iter().any(|&(j, _)| j == i) {
            continue;
        }
        let spent = (&mut full_used, &mut remaining);
        if whole(&mut costs, &mut chosen, spent, (k, share)) == Whole::Below {
            break;
        }
    }
    // The skeleton: top-level outlines of the package roots (a crate's lib.rs, a package's
    // __init__.py), which declare the modules a change usually has to touch.
    // Best-ranked roots first, then the unranked ones in path order.
    let score_of: HashMap<usize, f64> = ranked.iter().copied().collect();
    let mut roots_by_rank: Vec<usize> = (0..map.files().len())
        .filter(|&i| is_package_root(&map.files()[i].path))
        .collect();
    roots_by_rank.sort_by(|a, b| {
        let (sa, sb) = (
            score_of.get(a).unwrap_or(&0.0),
            score_of.get(b).unwrap_or(&0.0),
        );
        sb.total_cmp(sa).then(a.cmp(b))
    });
    let mut skeleton_left = (budget as f64 * ROOTS_SHARE) as usize;
    let mut roots = 0;
    for i in roots_by_rank {
        if roots >= MAX_ROOTS || chosen.iter().any(|(j, _)| *j == i) {
            continue;
        }
        let (c, level) = costs.cost(i, Level::TopLevel);
        if level == Level::TopLevel && c <= skeleton_left && c <= remaining {
            skeleton_left -= c;
            remaining -= c;
            roots += 1;
            chosen.push((i, Level::TopLevel));
        }
    }
    // Breadth first: every candidate gets its top-level outline (else its path) before any
    // gets more, so the plausible files further down the ranking stay visible; then the
    // better ones get all signatures, in rank order. An outline never takes the room of the
    // path lines of the next [`PATH_RESERVE_FILES`] candidates.
    let taken: std::collections::HashSet<usize> = chosen.iter().map(|&(i, _)| i).collect();
    let first_ranked = chosen.len();
    let rest: Vec<(usize, f64)> = ranked
        .iter()
        .filter(|(i, _)| !taken.contains(i))
        .copied()
        .collect();
    let path_costs: Vec<usize> = rest
        .iter()
        .map(|&(i, _)| costs.cost(i, Level::Path).0)
        .collect();
    for (p, &(i, score)) in rest.iter().enumerate() {
        let paths: usize = path_costs.iter().skip(p + 1).take(PATH_RESERVE_FILES).sum();
        let mut level = if score >= OUTLINE_SCORE {
            Level::TopLevel
        } else {
            Level::Path
        };
        // Long outlines are capped; once the budget runs short, to what is left of it.
        let room = remaining.saturating_sub(paths);
        if level == Level::TopLevel && room >= MIN_BLOCK {
            let cap = costs.cap_for(i, OUTLINE_CAP.min(room));
            costs.set_limit(i, cap);
        }
        while level > Level::Hidden {
            let (c, _) = costs.cost(i, level);
            if c <= remaining && (level == Level::Path || c <= room) {
                remaining -= c;
                chosen.push((i, level));
                break;
            }
            level = level.lower();
        }
    }
    for slot in chosen[first_ranked..].iter_mut() {
        let (i, level) = *slot;
        // Files with nothing to outline wait for the top-up: whole, they could take the
        // signatures of the next candidates.
        if level != Level::TopLevel
            || score_of[&i] < SIGNATURES_SCORE
            || costs.cost(i, level).1 != Level::TopLevel
        {
            continue;
        }
        if let Some(to) = costs.raise(i, level, &mut remaining) {
            slot.1 = to;
        }
    }
    // Top up: raise the best files while the budget allows.
    top_up(&mut costs, &mut chosen, &mut remaining, cheap_max);
    // What the top-up left: more of the zoomed file's items (a trace's failing function and
    // little else, when nothing else could take the room).
    if let Some((i, _)) = first_zoomed {
        let level = chosen.iter().find(|&&(j, _)| j == i).map(|&(_, l)| l);
        if let Some(level @ (Level::TopLevel | Level::Signatures)) =
            level.filter(|_| remaining >= MIN_BLOCK)
        {
            let now = costs.cost(i, level).0;
            let saved = (costs.focus.get(&i).cloned(), costs.limits.get(&i).copied());
            costs.set_limit(i, None);
            match zoom_at(
                &mut costs,
                map,
                plan,
                (i, level),
                (now + remaining, true),
                true,
            ) {
                Some(c) if c > now && c <= now + remaining => remaining -= c - now,
                _ => {
                    if let Some(focus) = saved.0 {
                        costs.set_focus(i, focus);
                    }
                    costs.set_limit(i, saved.1);
                }
            }
        }
    }
    // What no file could take whole: the signatures of the best file that has more,
    // capped to what is left.
    for slot in chosen.iter_mut() {
        if let Some(to) = costs.raise_capped(slot.0, slot.1, &mut remaining) {
            slot.1 = to;
            break;
        }
    }
    // What is left shows the rest of the map (outlines, else paths) in path order.
    let ranked_set: std::collections::HashSet<usize> = ranked.iter().map(|&(i, _)| i).collect();
    for i in 0..map.files().len() {
        if remaining < MIN_BLOCK {
            break;
        }
        if ranked_set.contains(&i) {
            continue;
        }
        for level in [Level::TopLevel, Level::Path] {
            let (c, _) = costs.cost(i, level);
            if c <= remaining {
                remaining -= c;
                chosen.push((i, level));
                break;
            }
        }
    }
    // What is still left once the whole map is shown (a large budget, a small repository):
    // every file shown goes on up, the ranked ones first; so do those at their paths with
    // nothing to outline. (While some file has no block, raising would only render the next
    // level of every file for nothing.)
    if chosen.len() == map.files().len() && remaining >= MIN_BLOCK {
        for slot in chosen.iter_mut().filter(|s| s.1 == Level::Path) {
            let (path, _) = costs.cost(slot.0, Level::Path);
            let (full, level) = costs.cost(slot.0, Level::Full);
            let bare = costs.cost(slot.0, Level::TopLevel).1 == Level::Path;
            if bare && level == Level::Full && full - path.min(full) <= remaining {
                slot.1 = Level::TopLevel;
            }
        }
        top_up(&mut costs, &mut chosen, &mut remaining, cheap_max);
    }
    let mut rules = vec![Rule {
        path: "**".into(),
        level: Level::Path,
        collapse: true,
        focus: Vec::new(),
        max_items: None,
    }];
    chosen.sort_by_key(|&(i, _)| i);
    rules.extend(chosen.into_iter().map(|(i, l)| {
        let l = costs.asked(i, l);
        let path = map.files()[i].path.clone();
        match (costs.focus.remove(&i), costs.limits.get(&i)) {
            (Some(focus), limit) if l < Level::Full => Rule {
                max_items: limit.copied().filter(|_| l >= Level::TopLevel),
                ..Rule::focused(path, l, focus)
            },
            (_, Some(&m)) if matches!(l, Level::TopLevel | Level::Signatures) => {
                Rule::capped(path, l, m)
            }
            _ => Rule::new(path, l),
        }
    }));
    FlightPlan {
        rules,
        ..plan.clone()
    }
}

/// Zooms the files among the first [`FRAME_RANKS`] ranked that a frame of the goal's trace
/// lies in, and that are neither whole nor zoomed into yet, into the functions of their frames
/// inside a capped outline: at most [`MAX_FRAME_FILES`], each within [`FRAME_ZOOM_SHARE`] of
/// the budget, while the reserve for the next candidates' outlines holds.
fn zoom_frames(
    costs: &mut Costs,
    map: &RepoMap,
    plan: &FlightPlan,
    ranked: &[(usize, f64)],
    chosen: &mut Vec<(usize, Level)>,
    remaining: &mut usize,
) {
    let budget = plan.token_budget;
    let query = ItemQuery::new(&plan.goal);
    let reserve = reserve_for(costs, ranked, chosen, budget);
    let mut zoomed_files = 0;
    for &(i, _) in ranked.iter().take(FRAME_RANKS) {
        if zoomed_files >= MAX_FRAME_FILES || chosen.iter().any(|&(j, _)| j == i) {
            continue;
        }
        let names = query.frame_items(&map.files()[i]);
        if names.is_empty() {
            continue;
        }
        let allowed = remaining
            .saturating_sub(reserve)
            .min((budget as f64 * FRAME_ZOOM_SHARE) as usize);
        let cap = costs.cap_for(i, OUTLINE_CAP.min(allowed / 4));
        let c = zoomed(costs, (i, Level::TopLevel), names, cap);
        if c <= allowed {
            *remaining -= c;
            chosen.push((i, Level::TopLevel));
            zoomed_files += 1;
        } else {
            costs.clear_focus(i);
            costs.set_limit(i, None);
        }
    }
}

/// The share of `budget` whole (and zoomed) files may take together once the zoom is done:
/// [`FULL_SHARE`], or at large budgets all but [`TAIL_TOKENS`].
fn full_share(budget: usize) -> usize {
    ((budget as f64 * FULL_SHARE) as usize).max(budget.saturating_sub(TAIL_TOKENS))
}

/// How many of the first ranked files may be whole: [`MAX_FULL`], or one per
/// [`TOKENS_PER_FULL`] of a large budget.
fn max_full(budget: usize) -> usize {
    MAX_FULL.max(budget / TOKENS_PER_FULL)
}

/// Raises the `chosen` files one level a round, in order, while `remaining` allows. A file
/// with nothing to outline (a document, a lock file) goes from its path to full source in one
/// step where the files ranked above it take two or three: one costing over `cheap` waits
/// until they are done (a 19k-token changelog ranked 20th took the room of the 5th to 16th
/// files' full source).
fn top_up(costs: &mut Costs, chosen: &mut [(usize, Level)], remaining: &mut usize, cheap: usize) {
    let mut jumps = false;
    loop {
        let mut changed = false;
        for slot in chosen.iter_mut() {
            if !jumps && costs.jumps_past(slot.0, slot.1, cheap) {
                continue;
            }
            if let Some(to) = costs.raise(slot.0, slot.1, remaining) {
                slot.1 = to;
                changed = true;
            }
        }
        if !changed {
            if jumps {
                break;
            }
            jumps = true;
        }
    }
}

/// What the packer made of a file it considered whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whole {
    /// Shown whole.
    Shown,
    /// Too big to be whole in its share.
    TooBig,
    /// Zoomed into already, or with no full source to show.
    Passed,
    /// Scoring below [`FULL_SCORE`]: neither it nor the files after it are whole.
    Below,
}

/// Whether the `k`-th ranked file, costing `c` tokens whole, is shown whole when whole files
/// have used `full_used` tokens and `remaining` are left: within its `share`, or — the first
/// two files — together within the first file's share while what is left still holds the
/// outlines of the next candidates (counted only when needed).
fn fits_whole(
    costs: &mut Costs,
    ranked: &[(usize, f64)],
    (k, pair): (usize, bool),
    c: usize,
    (full_used, remaining): (usize, usize),
    (share, pair_share): (usize, usize),
) -> bool {
    c <= remaining
        && (full_used + c <= share
            || pair
                && full_used + c <= pair_share
                && remaining.saturating_sub(c)
                    >= ranked
                        .iter()
                        .skip(k + 1)
                        .take(RESERVE_FILES)
                        .map(|&(j, _)| costs.cost(j, Level::TopLevel).0)
                        .sum::<usize>())
}

/// The tokens kept for the top-level outlines of the next [`RESERVE_FILES`] candidates not
/// yet chosen, at most [`RESERVE_SHARE`] of the budget: zooming never takes them.
fn reserve_for(
    costs: &mut Costs,
    ranked: &[(usize, f64)],
    chosen: &[(usize, Level)],
    budget: usize,
) -> usize {
    ranked
        .iter()
        .filter(|(i, _)| !chosen.iter().any(|(j, _)| j == i))
        .take(RESERVE_FILES)
        .map(|&(i, _)| costs.cost(i, Level::TopLevel).0)
        .sum::<usize>()
        .min((budget as f64 * RESERVE_SHARE) as usize)
}

/// What a weaker zoomed file may take: what is left past the reserve and past the whole files
/// of its share, and at most [`UNCLEAR_ZOOM_SHARE`] of the budget.
fn allowance(
    remaining: usize,
    reserve: usize,
    share: usize,
    full_used: usize,
    budget: usize,
) -> usize {
    remaining
        .saturating_sub(reserve)
        .min(share.saturating_sub(full_used))
        .min((budget as f64 * UNCLEAR_ZOOM_SHARE) as usize)
}

/// Zooms file `i` into the items the goal is about within `allowance` tokens for its whole
/// block; the block's tokens, `None` when no item fits or matches. With `rescue`, a zoom the
/// first choice leaves empty is tried again: the items counted with the file's head, then,
/// when the goal names an item or has a frame in the file, inside a capped outline.
fn zoom(
    costs: &mut Costs,
    map: &RepoMap,
    plan: &FlightPlan,
    i: usize,
    allowance: (usize, bool),
) -> Option<usize> {
    zoom_at(costs, map, plan, (i, Level::TopLevel), allowance, false)
}

/// [`zoom`] with the file's outline at `level` (top-level or all signatures) around the items;
/// with `fill`, the items near the best one fill what the allowance leaves.
fn zoom_at(
    costs: &mut Costs,
    map: &RepoMap,
    plan: &FlightPlan,
    (i, level): (usize, Level),
    (allowance, rescue): (usize, bool),
    fill: bool,
) -> Option<usize> {
    let file = &map.files()[i];
    let mut query = ItemQuery::new(&plan.goal);
    query.set_fill_near(fill);
    // The item the goal's trace failed in first: around the whole outline, then (below)
    // around a capped one; only then the best of the other items.
    query.set_strict(true);
    let plain = |query: &mut ItemQuery| {
        query.choose(file, (allowance, rescue), plan.tokenizer, |focus| {
            file_block(file, level, focus, plan.tokenizer).1
        })
    };
    let focus = plain(&mut query);
    // The item the goal is clearly about did not fit beside the whole outline and weaker ones
    // did: around it, a capped outline (a filter module's `do_wordcount` shown for a goal
    // about `truncate` told nothing).
    let clear = (rescue && !focus.is_empty())
        .then(|| query.clear_best(file))
        .flatten()
        .filter(|best| !focus.contains(best));
    if let Some(best) = clear {
        let capped = capped_choice(costs, &mut query, map, plan, (i, level), allowance)
            .filter(|(capped, _)| capped.contains(&best));
        if let Some((capped, cap)) = capped {
            return Some(zoomed(costs, (i, level), capped, Some(cap)));
        }
    }
    if !focus.is_empty() {
        return Some(zoomed(costs, (i, level), focus, None));
    }
    // The whole outline leaves no room for the items (a big file, a small budget) and the
    // goal points at an item by name or by a traceback frame: around the items, only the
    // entries the goal is about, capped like a candidate's outline. (For goals that only share
    // words with the file, its whole outline or weaker files whole were worth more.)
    if rescue && query.points_into(file) {
        let capped = capped_choice(costs, &mut query, map, plan, (i, level), allowance)
            .filter(|(capped, _)| !capped.is_empty());
        if let Some((capped, cap)) = capped {
            return Some(zoomed(costs, (i, level), capped, Some(cap)));
        }
    }
    // The failing item fits nowhere: the best of the others.
    query.set_strict(false);
    let focus = plain(&mut query);
    if focus.is_empty() {
        return None;
    }
    Some(zoomed(costs, (i, level), focus, None))
}

/// The items `query` chooses in file `i` inside its outline at `level` capped like a
/// candidate's (a small allowance keeps most of itself for the items), with the cap; `None`
/// when the whole outline is short enough to need no cap.
fn capped_choice(
    costs: &mut Costs,
    query: &mut ItemQuery,
    map: &RepoMap,
    plan: &FlightPlan,
    (i, level): (usize, Level),
    allowance: usize,
) -> Option<(Vec<String>, u32)> {
    let file = &map.files()[i];
    let cap = costs.cap_for(i, OUTLINE_CAP.min(allowance / 4))?;
    let goal: &GoalWords = &costs.goal;
    let focus = query.choose(file, (allowance, true), plan.tokenizer, |focus| {
        shaped_block(file, level, focus, Some((cap, goal)), plan.tokenizer).1
    });
    Some((focus, cap))
}

/// Zooms file `i` into `focus` at `level`, its outline capped to `cap` entries when given;
/// the block's tokens.
fn zoomed(
    costs: &mut Costs,
    (i, level): (usize, Level),
    focus: Vec<String>,
    cap: Option<u32>,
) -> usize {
    costs.set_focus(i, focus);
    if cap.is_some() {
        costs.set_limit(i, cap);
    }
    costs.cost(i, level).0
}

/// The outcome of [`fit`].
#[derive(Debug, Clone)]
pub struct Fitted {
    /// The plan after lowering.
    pub plan: FlightPlan,
    /// Its context.
    pub rendered: Rendered,
    /// Files lowered to fit, with the level they ended at.
    pub degraded: Vec<(String, Level)>,
    /// Whether the context fits the budget (false only when the header and the collapsed
    /// directory lines alone exceed it).
    pub fits: bool,
}

/// Renders `plan`, lowering the least valuable files (by `values`, keyed by path, default 0)
/// until the context fits the budget: the least valuable file goes down level by level to its
/// path before the next one loses anything, and paths are dropped only once no file shows
/// content. Then the lowered files get back what still fits, most valuable first, taking the
/// room of less valuable files' path lines when they need it. Every plan the explorer makes passes through it, whatever its policy said; replays
/// with refit too.
///
/// ```no_run
/// use navigator_context::{fit, FlightPlan, Level, RepoMap, Rule};
/// let map = RepoMap::open(".")?;
/// let mut plan = FlightPlan::new("overview", 2_000);
/// plan.rules = vec![Rule::new("**", Level::Full)];
/// let fitted = fit(&map, plan, &Default::default())?;
/// assert!(!fitted.fits || fitted.rendered.tokens <= 2_000);
/// # Ok::<(), navigator_context::Error>(())
/// ```
pub fn fit(map: &RepoMap, plan: FlightPlan, values: &HashMap<String, f64>) -> Result<Fitted> {
    let mut plan = plan;
    let mut degraded: Vec<(String, Level)> = Vec::new();
    // The level each lowered file had before the first lowering.
    let mut was: HashMap<String, Level> = HashMap::new();
    loop {
        let rendered = render(map, &plan)?;
        if rendered.tokens <= plan.token_budget {
            let fitted = Fitted {
                plan,
                rendered,
                degraded,
                fits: true,
            };
            return restore(map, fitted, &was, values);
        }
        let mut deficit = rendered.tokens - plan.token_budget;
        let snapshot = plan.clone();
        let mut costs = Costs::new(map, &snapshot);
        let mut visible: Vec<(usize, Level, f64)> = rendered
            .levels
            .iter()
            .enumerate()
            .filter(|(i, (_, l))| {
                *l > Level::Hidden && rendered.collapsed.binary_search(i).is_err()
            })
            .map(|(i, (p, l))| (i, *l, values.get(p).copied().unwrap_or(0.0)))
            .collect();
        // Lowest value first; among equals the most expensive level first, then path order.
        visible.sort_by(|a, b| a.2.total_cmp(&b.2).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
        // The least valuable file goes down to its path before the next one loses anything,
        // so that the most valuable keep their levels; paths are dropped only once no file
        // shows content.
        let floor = if visible.iter().any(|v| v.1 > Level::Path) {
            Level::Path
        } else {
            Level::Hidden
        };
        let mut lowered = 0;
        for (i, mut level, _) in visible {
            if deficit == 0 {
                break;
            }
            if level <= floor {
                continue;
            }
            let path = map.files()[i].path.clone();
            was.entry(path.clone()).or_insert(level);
            while level > floor && deficit > 0 {
                let to = level.lower();
                let saving = costs.cost(i, level).0.saturating_sub(costs.cost(i, to).0);
                deficit = deficit.saturating_sub(saving.max(1));
                level = to;
            }
            set_exact(&mut plan, &path, level);
            match degraded.iter_mut().find(|(p, _)| *p == path) {
                Some(d) => d.1 = level,
                None => degraded.push((path, level)),
            }
            lowered += 1;
        }
        if lowered == 0 {
            // Only collapsed directory lines are left: drop them, then give up.
            if plan.rules.iter().any(|r| r.collapse) {
                plan.rules.retain(|r| !r.collapse);
                continue;
            }
            return Ok(Fitted {
                plan,
                rendered,
                degraded,
                fits: false,
            });
        }
    }
}

/// Gives the files [`fit`] lowered back what the budget still allows, most valuable first,
/// one level at a time up to the level each had (the lowering estimates its savings, and a
/// large deficit takes files down further than needed). A file that would not fit takes the
/// room of the path lines of less valuable files, least valuable first: the content of a
/// better file is worth more than the names of worse ones.
fn restore(
    map: &RepoMap,
    mut fitted: Fitted,
    was: &HashMap<String, Level>,
    values: &HashMap<String, f64>,
) -> Result<Fitted> {
    let value = |p: &str| values.get(p).copied().unwrap_or(0.0);
    let budget = fitted.plan.token_budget;
    let mut order: Vec<String> = fitted.degraded.iter().map(|(p, _)| p.clone()).collect();
    order.sort_by(|a, b| value(b).total_cmp(&value(a)).then(a.cmp(b)));
    // Per level, the smallest estimated growth of a raise to it that did not fit: a later
    // (less valuable) file's raise that grows as much finds no more room, and is not
    // rendered to learn it (a hundred outlines tried one render each on Django). A path line
    // that did not fit counts as growth 0: less valuable paths have fewer path lines to take
    // the room of, so no later one fits (thousands of tries on a large repository).
    let snapshot = fitted.plan.clone();
    let mut costs = Costs::new(map, &snapshot);
    let mut failed: HashMap<Level, usize> = HashMap::new();
    // Files that may still try a capped outline (see below).
    let mut capped_tries = 3;
    for path in order {
        let Some(&target) = was.get(&path) else {
            continue;
        };
        let i = costs.index(&path);
        // Still lowered: at the level it has now.
        while let Some(now) = fitted
            .degraded
            .iter()
            .find(|(p, _)| *p == path)
            .map(|d| d.1)
        {
            if now >= target {
                break;
            }
            let up = Level::ALL[now as usize + 1];
            let growth = i.map_or(0, |i| {
                costs.cost(i, up).0.saturating_sub(costs.cost(i, now).0)
            });
            let hopeless = failed.get(&up).is_some_and(|&f| growth >= f);
            let mut trial = fitted.plan.clone();
            set_exact(&mut trial, &path, up);
            let mut got = None;
            if !hopeless {
                got = give_room(map, trial.clone(), &path, budget, &value)?;
                if got.is_none() {
                    let f = failed.entry(up).or_insert(growth);
                    *f = (*f).min(growth);
                }
            }
            // A zoomed outline that does not fit may still fit as the plain outline: the file
            // keeps its level, not the items it showed at full source (a refit to 1,000
            // tokens left the second file a path where its 60-token outline fit).
            let zoomed =
                |r: &Rule| r.path == path && (!r.focus.is_empty() || r.max_items.is_some());
            let mut plain = false;
            // Before that: fewer of its items, the one least relevant to the goal left out
            // first (a refit from 4,000 to 2,000 tokens left `helpers.py` a plain outline
            // where two of its five items fit, the two the goal names).
            let mut fewer = false;
            if got.is_none() && up > Level::Path {
                let focus = trial
                    .rules
                    .iter()
                    .find(|r| r.path == path)
                    .map(|r| r.focus.clone())
                    .unwrap_or_default();
                if let (true, Some(i)) = (focus.len() > 1, i) {
                    let ranked = ItemQuery::new(&trial.goal).by_relevance(&map.files()[i], &focus);
                    for keep in (1..ranked.len()).rev() {
                        let mut fewer_items = trial.clone();
                        for r in fewer_items.rules.iter_mut().filter(|r| r.path == path) {
                            r.focus.retain(|f| ranked[..keep].contains(f));
                        }
                        got = give_room(map, fewer_items, &path, budget, &value)?;
                        if got.is_some() {
                            fewer = true;
                            break;
                        }
                    }
                }
            }
            if got.is_none() && up > Level::Path && trial.rules.iter().any(zoomed) {
                let mut unzoomed = trial.clone();
                for r in unzoomed.rules.iter_mut().filter(|r| r.path == path) {
                    r.focus.clear();
                    r.max_items = None;
                }
                got = give_room(map, unzoomed, &path, budget, &value)?;
                plain = got.is_some();
            }
            // Last, an outline of fewer entries, those sharing a word with the goal first (a
            // file grown by 800 functions went from full source to its bare path on a refit,
            // 2,136 tokens left unused). Tried for the few most valuable files only: each cap
            // is a render.
            if got.is_none()
                && matches!(up, Level::TopLevel | Level::Signatures)
                && capped_tries > 0
            {
                capped_tries -= 1;
                for cap in [32, 16, 8, 4, 2, 1] {
                    let mut fewer_entries = trial.clone();
                    for r in fewer_entries.rules.iter_mut().filter(|r| r.path == path) {
                        r.focus.clear();
                        r.max_items = Some(cap);
                    }
                    got = give_room(map, fewer_entries, &path, budget, &value)?;
                    if got.is_some() {
                        plain = true;
                        break;
                    }
                }
            }
            let Some((trial, rendered, hidden)) = got else {
                if up == Level::Path {
                    failed.insert(up, 0);
                }
                break;
            };
            fitted.plan = trial;
            fitted.rendered = rendered;
            fitted.degraded.retain(|(p, _)| *p != path);
            // A file that lost its zoom, or some of its items, stays listed as lowered, and is
            // raised no further.
            if up < target || plain || fewer {
                fitted.degraded.push((path.clone(), up));
            }
            for p in hidden {
                match fitted.degraded.iter_mut().find(|(q, _)| *q == p) {
                    Some(d) => d.1 = Level::Hidden,
                    None => fitted.degraded.push((p, Level::Hidden)),
                }
            }
            if plain || fewer {
                break;
            }
        }
    }
    Ok(fitted)
}

/// `trial` (which raises `path`) rendered within `budget`, hiding the path lines of files less
/// valuable than `path`, least valuable first, as far as needed: the plan, its render and the
/// paths hidden; `None` when it does not fit even so.
fn give_room(
    map: &RepoMap,
    mut trial: FlightPlan,
    path: &str,
    budget: usize,
    value: &dyn Fn(&str) -> f64,
) -> Result<Option<(FlightPlan, Rendered, Vec<String>)>> {
    let tokenizer = trial.tokenizer;
    let mut rendered = render(map, &trial)?;
    let mut hidden = Vec::new();
    if rendered.tokens > budget {
        let mut spare: Vec<String> = rendered
            .listed_paths()
            .filter(|p| *p != path && value(p) < value(path))
            .map(str::to_string)
            .collect();
        spare.sort_by(|a, b| value(a).total_cmp(&value(b)).then(a.cmp(b)));
        let mut spare = spare.into_iter();
        while rendered.tokens > budget {
            // Hide as many paths as the estimate says, then count exactly.
            let over = rendered.tokens - budget;
            let mut freed = 0;
            for p in spare.by_ref() {
                freed += tokenizer.count(&format!("{p}\n"));
                set_exact(&mut trial, &p, Level::Hidden);
                hidden.push(p);
                if freed >= over {
                    break;
                }
            }
            if freed == 0 {
                break;
            }
            rendered = render(map, &trial)?;
        }
        if rendered.tokens > budget {
            return Ok(None);
        }
    }
    Ok(Some((trial, rendered, hidden)))
}

fn set_exact(plan: &mut FlightPlan, path: &str, level: Level) {
    match plan.rules.iter_mut().find(|r| r.path == path) {
        Some(r) => r.level = level,
        None => plan.rules.push(Rule::new(path, level)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` files, each a struct whose impl holds many documented methods: cheap as a top-level
    /// outline, expensive with all signatures and docs.
    fn wide_map(n: usize) -> (tempfile::TempDir, RepoMap) {
        let files: Vec<(String, String)> = (0..n)
            .map(|k| {
                let mut text = format!("pub struct Thing{k};\nimpl Thing{k} {{\n");
                for m in 0..30 {
                    text.push_str(&format!(
                        "    /// Does step {m} of the work with care and explains itself at length.\n    pub fn step_{m}(&self) -> u32 {{ {m} }}\n"
                    ));
                }
                text.push_str("}\n");
                (format!("f{k:02}.rs"), text)
            })
            .collect();
        crate::scan::temp_map(&files)
    }

    /// The level `plan`'s exact rule for `path` asks for.
    fn level_in(plan: &FlightPlan, path: &str) -> Option<Level> {
        plan.rules.iter().find(|r| r.path == path).map(|r| r.level)
    }

    /// `c00.rs`, `c01.rs`, ... ranked after the files a test is about: 0.50, 0.49, ...
    fn candidates(n: usize) -> impl Iterator<Item = Scored> {
        numbered("c", n, |k| 0.5 - 0.01 * k as f64).into_iter()
    }

    /// `{prefix}00.rs`, `{prefix}01.rs`, ... (`n` files) scoring `score(k)`.
    fn numbered(prefix: &str, n: usize, score: impl Fn(usize) -> f64) -> Vec<Scored> {
        (0..n)
            .map(|k| Scored {
                path: format!("{prefix}{k:02}.rs"),
                score: score(k),
                reasons: Vec::new(),
            })
            .collect()
    }

    /// `fns` functions of six-line bodies (far costlier whole than as signatures).
    fn long_fns(k: usize, fns: usize) -> String {
        let body: String = (0..6)
            .map(|i| format!("    let x{i} = {i} * {k};\n"))
            .collect();
        (0..fns)
            .map(|m| format!("pub fn f{k}_{m}() {{\n{body}}}\n"))
            .collect()
    }

    /// A ranking of `paths` in order, scores 1.0, 0.9, 0.8, ...
    fn descending(paths: &[&str]) -> Vec<Scored> {
        paths
            .iter()
            .enumerate()
            .map(|(k, p)| Scored {
                path: p.to_string(),
                score: 1.0 - 0.1 * k as f64,
                reasons: Vec::new(),
            })
            .collect()
    }

    /// Two close, big first candidates (`big0.rs`, `big1.rs`, each one long function) and
    /// ten more: with `flat`, each 40 top-level functions (a costly outline), else a struct
    /// with 30 documented methods (a cheap outline, costly signatures). Gives the ranking
    /// and the first two's full cost.
    fn pair_fixture(flat: bool) -> (tempfile::TempDir, RepoMap, Vec<Scored>, usize) {
        let mut files: Vec<(String, String)> = (0..2)
            .map(|k| {
                let body: String = (0..120)
                    .map(|i| format!("    let x{i} = {i} * {k};\n"))
                    .collect();
                (
                    format!("big{k}.rs"),
                    format!("pub fn big_{k}() {{\n{body}}}\n"),
                )
            })
            .collect();
        files.extend((0..10).map(|k| {
            let text: String = if flat {
                (0..40).map(|m| format!("pub fn c{k}_{m}() {{}}\n")).collect()
            } else {
                let methods: String = (0..30)
                    .map(|m| format!("    /// Step {m}, explained at some length for the reader.\n    pub fn step_{m}(&self) {{}}\n"))
                    .collect();
                format!("pub struct C{k};\nimpl C{k} {{\n{methods}}}\n")
            };
            (format!("c{k:02}.rs"), text)
        }));
        let (dir, map) = crate::scan::temp_map(&files);
        let mut ranking = descending(&["big0.rs", "big1.rs"]);
        ranking.extend(candidates(10));
        let probe = FlightPlan::new("goal", 100_000);
        let mut costs = Costs::new(&map, &probe);
        let big = |c: &mut Costs, p: &str| c.cost(c.index(p).unwrap(), Level::Full).0;
        let pair = big(&mut costs, "big0.rs") + big(&mut costs, "big1.rs");
        (dir, map, ranking, pair)
    }

    /// The levels `pack` gives `big0.rs`, `big1.rs` and the ten candidates of
    /// [`pair_fixture`] when the pair takes 78 % of the budget: over the 70 % of two unclear
    /// files, within 85 %.
    fn pair_levels(flat: bool) -> (Option<Level>, Option<Level>, Vec<Option<Level>>) {
        let (_d, map, ranking, pair) = pair_fixture(flat);
        let budget = (pair as f64 / 0.78) as usize;
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", budget));
        let level_of = |path: &str| level_in(&packed, path);
        let rest = (0..10).map(|k| level_of(&format!("c{k:02}.rs"))).collect();
        (level_of("big0.rs"), level_of("big1.rs"), rest)
    }

    #[test]
    fn two_close_candidates_share_the_first_share_only_while_the_next_outlines_fit() {
        let (first, second, rest) = pair_levels(false);
        assert_eq!((first, second), (Some(Level::Full), Some(Level::Full)));
        assert!(rest.iter().all(|l| *l >= Some(Level::TopLevel)), "{rest:?}");
        // (Without the pair rule the second file waits for the top-up, and the candidates'
        // signatures, given first, take its room.) Candidates whose outlines would not fit
        // beside the pair keep the second one outlined instead.
        let (first, second, _) = pair_levels(true);
        assert_eq!(first, Some(Level::Full));
        assert_ne!(second, Some(Level::Full));
    }

    /// The level `pack` gives `big.rs` (one long function, scoring 1.0) ranked ahead of
    /// twenty candidates of `fns` functions each (the first scoring `runner_up`, the others
    /// 0.5), and whether the first ten still show their outlines and the other ten their
    /// paths, when the budget leaves `spare(outlines, paths)` tokens beside `big.rs` whole:
    /// `outlines` the first ten's outlines capped to [`OUTLINE_CAP`], `paths` the other ten's
    /// path lines.
    fn big_first(
        runner_up: f64,
        fns: usize,
        spare: impl Fn(usize, usize) -> usize,
    ) -> (Option<Level>, bool) {
        let body: String = (0..1000)
            .map(|i| format!("    let x{i} = {i};\n"))
            .collect();
        let mut files = vec![("big.rs".to_string(), format!("pub fn big() {{\n{body}}}\n"))];
        files.extend((0..20).map(|k| {
            let text: String = (0..fns)
                .map(|m| format!("pub fn c{k}_{m}(input: &str) -> usize {{ 0 }}\n"))
                .collect();
            (format!("c{k:02}.rs"), text)
        }));
        let (_d, map) = crate::scan::temp_map(&files);
        let ranking: Vec<Scored> = map
            .files()
            .iter()
            .map(|f| Scored {
                score: match f.path.as_str() {
                    "big.rs" => 1.0,
                    "c00.rs" => runner_up,
                    _ => 0.5,
                },
                path: f.path.clone(),
                reasons: Vec::new(),
            })
            .collect();
        let probe = FlightPlan::new("goal", 100_000);
        let mut costs = Costs::new(&map, &probe);
        let big = costs.cost(costs.index("big.rs").unwrap(), Level::Full).0;
        let mut cost = |k: usize, level| {
            costs
                .cost(costs.index(&format!("c{k:02}.rs")).unwrap(), level)
                .0
        };
        let outlines: usize = (0..10)
            .map(|k| cost(k, Level::TopLevel).min(OUTLINE_CAP))
            .sum();
        let paths: usize = (10..20).map(|k| cost(k, Level::Path)).sum();
        let overhead = probe.tokenizer.count(&header(&probe)) + 8;
        let budget = big + overhead + spare(outlines, paths);
        assert!(
            big as f64 > 0.85 * budget as f64,
            "the fixture must exceed 85 %"
        );
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", budget));
        let level_of = |k: usize| {
            packed
                .rules
                .iter()
                .find(|r| r.path == format!("c{k:02}.rs"))
                .map(|r| r.level)
        };
        let kept = (0..10).all(|k| level_of(k) >= Some(Level::TopLevel))
            && (10..20).all(|k| level_of(k) >= Some(Level::Path));
        let big = packed.rules.iter().find(|r| r.path == "big.rs");
        (big.map(|r| r.level), kept)
    }

    #[test]
    fn the_first_file_is_whole_when_the_next_candidates_keep_their_outlines() {
        // Clear (the next candidate scores half of it), or not (0.9 of it: still the best
        // guess, and over the 70 % the files after it share), with the next candidates'
        // outlines short, or long (30 functions each: only their capped outlines fit).
        for (runner_up, fns) in [(0.5, 1), (0.9, 30)] {
            // Room for the next ten outlines and ten path lines beside it: whole, though over
            // 85 % of the budget.
            let (level, kept) = big_first(runner_up, fns, |outlines, paths| outlines + paths + 4);
            assert_eq!(level, Some(Level::Full), "{runner_up}");
            assert!(kept, "{runner_up}");
            // Room for path lines only: cut to the items of its outline instead.
            let (level, kept) = big_first(runner_up, fns, |_, paths| 2 * paths + 4);
            assert_ne!(level, Some(Level::Full), "{runner_up}");
            assert!(kept, "{runner_up}");
        }
    }

    #[test]
    fn every_candidate_gets_an_outline_before_any_gets_signatures() {
        let (_d, map) = wide_map(12);
        // Scores above the signatures threshold, below full source.
        let ranking: Vec<Scored> = map
            .files()
            .iter()
            .enumerate()
            .map(|(k, f)| Scored {
                path: f.path.clone(),
                score: 0.34 - 0.005 * k as f64,
                reasons: Vec::new(),
            })
            .collect();
        let probe = FlightPlan::new("goal", 100_000);
        let mut costs = Costs::new(&map, &probe);
        let outlines: usize = (0..12).map(|i| costs.cost(i, Level::TopLevel).0).sum();
        let signatures = costs.cost(0, Level::Signatures).0;
        assert!(
            signatures > 4 * outlines / 12,
            "the fixture must make signatures costly"
        );
        // Room for one file's signatures and half the outlines, or for all outlines.
        let budget = signatures + outlines / 2 + 30;
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", budget));
        for f in map.files() {
            let level = packed
                .rules
                .iter()
                .find(|r| r.path == f.path)
                .map(|r| r.level);
            assert!(
                level >= Some(Level::TopLevel),
                "{} got {level:?} in {:?}",
                f.path,
                packed.rules
            );
        }
    }

    #[test]
    fn the_packer_shows_a_ranked_documents_headings_only_when_it_is_ranked_first() {
        let mut guide = String::from("# Guide\n\n");
        for k in 0..40 {
            guide.push_str(&format!(
                "## Step {k}\n\nRun the tool with care, then read what it printed at length.\n\n"
            ));
        }
        let mut files = vec![("guide.md".to_string(), guide)];
        files.extend((0..6).map(|k| (format!("c{k}.rs"), format!("pub fn c{k}() {{}}\n"))));
        let (_d, map) = crate::scan::temp_map(&files);
        let ranking = descending(&[
            "c0.rs", "guide.md", "c1.rs", "c2.rs", "c3.rs", "c4.rs", "c5.rs",
        ]);
        let probe = FlightPlan::new("goal", 100_000);
        let mut costs = Costs::new(&map, &probe);
        let g = costs.index("guide.md").unwrap();
        let (outline, level) = costs.cost(g, Level::TopLevel);
        assert_eq!(level, Level::TopLevel, "a plan's rule shows the headings");
        let whole = costs.cost(g, Level::Full).0;
        // Room for the headings and the code outlines, not for the whole guide.
        let budget = outline + 200;
        assert!(budget < whole);
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", budget));
        let out = render(&map, &packed).unwrap();
        assert_eq!(out.level_of("guide.md"), Level::Path, "{}", out.text);
        assert!(out.level_of("c5.rs") >= Level::TopLevel, "{}", out.text);
        // Ranked first, a document too big to be whole shows its headings.
        let mut first = ranking.clone();
        first.swap(0, 1);
        let packed = pack(&map, &first, &FlightPlan::new("goal", budget));
        let out = render(&map, &packed).unwrap();
        let level = out.level_of("guide.md");
        assert!(
            (Level::TopLevel..Level::Full).contains(&level),
            "{}",
            out.text
        );
    }

    #[test]
    fn a_long_outline_is_capped_so_the_next_candidates_keep_theirs() {
        // `long.rs` ranks first with forty long signatures; ten small candidates follow.
        let long: String = (0..40)
            .map(|m| format!("pub fn handle_request_variant_{m}(input: &str, limit: usize) -> Option<String> {{ None }}\n"))
            .collect();
        let mut files = vec![("long.rs".to_string(), long)];
        files.extend((0..10).map(|k| (format!("c{k:02}.rs"), format!("pub fn c{k}() {{}}\n"))));
        let (_d, map) = crate::scan::temp_map(&files);
        // Scores below the signatures and full-source thresholds: outlines only.
        let ranking: Vec<Scored> = files
            .iter()
            .enumerate()
            .map(|(k, (p, _))| Scored {
                path: p.clone(),
                score: 0.2 - 0.01 * k as f64,
                reasons: Vec::new(),
            })
            .collect();
        let probe = FlightPlan::new("goal", 100_000);
        let mut costs = Costs::new(&map, &probe);
        let long = costs.index("long.rs").unwrap();
        let whole = costs.cost(long, Level::TopLevel).0;
        let small: usize = (0..11)
            .filter(|&i| i != long)
            .map(|i| costs.cost(i, Level::TopLevel).0)
            .sum();
        assert!(whole > 4 * OUTLINE_CAP, "the fixture needs a long outline");
        // Room for the long outline and half the small ones.
        let budget = whole + small / 2 + 20;
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", budget));
        let rule = |p: &str| packed.rules.iter().find(|r| r.path == p).cloned();
        for k in 0..10 {
            let r = rule(&format!("c{k:02}.rs"));
            assert!(
                r.as_ref().is_some_and(|r| r.level >= Level::TopLevel),
                "c{k:02}.rs: {r:?}"
            );
        }
        let capped = rule("long.rs").unwrap();
        assert_eq!(capped.level, Level::TopLevel);
        assert!(capped.max_items.is_some_and(|m| m < 40), "{capped:?}");
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        assert!(fitted.degraded.is_empty() && fitted.rendered.tokens <= budget);
        // With room for everything, the top-up lifts the cap.
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", 100_000));
        let r = packed.rules.iter().find(|r| r.path == "long.rs").unwrap();
        assert!(r.level >= Level::TopLevel && r.max_items.is_none(), "{r:?}");
    }

    /// `big.rs`, forty twelve-line functions named by `name`, ranked first, and `small.rs`,
    /// `rows` lines of constants, ranked second with `second`.
    fn big_and_small(
        name: impl Fn(usize) -> String,
        rows: usize,
        second: f64,
        tail: usize,
    ) -> (tempfile::TempDir, RepoMap, Vec<Scored>) {
        let body: String = (0..12)
            .map(|i| format!("    let value_{i} = input.len() * {i} + limit;\n"))
            .collect();
        let big: String = (0..40)
            .map(|m| {
                let name = name(m);
                format!(
                    "pub fn {name}(input: &str, limit: usize) -> usize {{\n{body}    limit\n}}\n"
                )
            })
            .collect();
        let small: String = (0..rows)
            .map(|i| format!("pub const TABLE_{i}: [u32; 4] = [{i}, 1, 2, 3];\n"))
            .collect();
        let mut files = vec![("big.rs".to_string(), big), ("small.rs".to_string(), small)];
        files.extend((0..tail).map(|k| {
            let fns: String = (0..40)
                .map(|m| format!("pub fn c{k}_{m}(input: &str) -> usize {{ 0 }}\n"))
                .collect();
            (format!("c{k:02}.rs"), fns)
        }));
        let (dir, map) = crate::scan::temp_map(&files);
        let mut ranking: Vec<Scored> = [("big.rs", 1.0), ("small.rs", second)]
            .into_iter()
            .map(|(path, score)| Scored {
                path: path.into(),
                score,
                reasons: Vec::new(),
            })
            .collect();
        ranking.extend(candidates(tail));
        (dir, map, ranking)
    }

    /// `big.rs`, far over the budget, with forty functions of which `add_vary_header` is what
    /// the goal is about; `small.rs`, `rows` lines of constants, ranked second with `second`
    /// and whole at 60 % of the budget returned. Also returned: the tokens of `big.rs` zoomed
    /// into `add_vary_header`, and of `small.rs` whole.
    fn vary_fixture(
        second: f64,
        rows: usize,
    ) -> (tempfile::TempDir, RepoMap, Vec<Scored>, [usize; 3]) {
        let name = |m: usize| {
            if m == 17 {
                "add_vary_header".to_string()
            } else {
                format!("step_{m}")
            }
        };
        let (dir, map, ranking) = big_and_small(name, rows, second, 0);
        let probe = FlightPlan::new(VARY_GOAL, 100_000);
        let mut costs = Costs::new(&map, &probe);
        let (b, sm) = (
            costs.index("big.rs").unwrap(),
            costs.index("small.rs").unwrap(),
        );
        let whole_small = costs.cost(sm, Level::Full).0;
        let whole_big = costs.cost(b, Level::Full).0;
        let zoomed = file_block(
            &map.files()[b],
            Level::TopLevel,
            &["add_vary_header".into()],
            probe.tokenizer,
        )
        .1;
        let budget = whole_small * 10 / 6;
        assert!(
            whole_big > budget,
            "the fixture needs a file over the budget"
        );
        (dir, map, ranking, [budget, zoomed, whole_small])
    }

    const VARY_GOAL: &str = "add the vary header";

    /// Whether a zoom into `big.rs` shows `add_vary_header` (the 18th function), and besides
    /// it only its neighbours, which fill room the rest of the context left.
    fn around_vary(focus: &[String]) -> bool {
        focus.iter().any(|f| f == "add_vary_header")
            && focus.iter().all(|f| {
                f == "add_vary_header"
                    || f.strip_prefix("step_")
                        .and_then(|n| n.parse::<i32>().ok())
                        .is_some_and(|n| (n - 17).abs() <= 4)
            })
    }

    /// Packs [`vary_fixture`] and fits the plan: the rules of `big.rs` and `small.rs`, and
    /// whether the context shows `add_vary_header`.
    fn vary_packed(second: f64, rows: usize, sizes: impl Fn([usize; 3])) -> (Rule, Rule, bool) {
        let (_d, map, ranking, [budget, zoomed, small]) = vary_fixture(second, rows);
        sizes([budget, zoomed, small]);
        let packed = pack(&map, &ranking, &FlightPlan::new(VARY_GOAL, budget));
        let rule = |p: &str| packed.rules.iter().find(|r| r.path == p).cloned().unwrap();
        let (big, small) = (rule("big.rs"), rule("small.rs"));
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        assert!(
            fitted.rendered.tokens <= budget,
            "{}",
            fitted.rendered.tokens
        );
        (
            big,
            small,
            fitted.rendered.text.contains("pub fn add_vary_header"),
        )
    }

    #[test]
    fn the_best_file_is_zoomed_into_before_a_weaker_file_takes_the_share() {
        // The zoomed file fits beside `small.rs` whole only past the 70 % two files may
        // share, within the 85 % of a pair, and within the quarter a first zoom may take.
        let sizes = |[budget, zoomed, small]: [usize; 3]| {
            assert!(
                zoomed > budget * 7 / 10 - small
                    && zoomed < budget * 85 / 100 - small
                    && zoomed < budget / 4,
                "zoomed {zoomed}, budget {budget}, small {small}"
            );
        };
        // A clear first file (the second scores half of it) and a close second (over 80 %
        // of the best), which used to take the share whole first and leave the best file
        // nothing to zoom with: the best file's items come first, and the second file still
        // shows whole, as a pair's share allows.
        for second in [0.5, 0.9] {
            let (big, small, shown) = vary_packed(second, 100, sizes);
            assert!(around_vary(&big.focus), "{second}: {big:?}");
            assert!(shown, "{second}");
            assert_eq!(small.level, Level::Full, "{second}: {small:?}");
        }
    }

    #[test]
    fn room_the_rest_left_shows_the_functions_around_the_failing_one() {
        // One file over the budget, a panic inside `add_vary_header`, nothing else to show:
        // its neighbours fill the budget instead of leaving most of it unspent.
        let (_d, map, ranking, _) = vary_fixture(0.0, 1);
        let ranking: Vec<Scored> = ranking.into_iter().take(1).collect();
        let probe = FlightPlan::new(VARY_GOAL, 100_000);
        let mut costs = Costs::new(&map, &probe);
        let b = costs.index("big.rs").unwrap();
        let budget = costs.cost(b, Level::Full).0 / 2;
        let goal = "thread 'main' panicked at big.rs:260:9:\nattempt to multiply with overflow";
        let packed = pack(&map, &ranking, &FlightPlan::new(goal, budget));
        let big = packed.rules.iter().find(|r| r.path == "big.rs").unwrap();
        assert!(big.focus.iter().any(|f| f == "add_vary_header"), "{big:?}");
        assert!(big.focus.len() > 2, "{big:?}");
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        let tokens = fitted.rendered.tokens;
        assert!(
            tokens <= budget && tokens * 10 > budget * 7,
            "{tokens} of {budget}"
        );
    }

    /// A Python module of `n` handlers with a `Registry` class at the end whose `__init__`
    /// sets `self.strict_mode`.
    fn registry_map(n: usize) -> (tempfile::TempDir, RepoMap) {
        let mut src: String = (0..n)
            .map(|k| {
                format!(
                    "def handler_{k:03}(request):\n    \"\"\"Handle case {k}.\"\"\"\n    value = request.get(\"k{k}\")\n    return value\n\n\n"
                )
            })
            .collect();
        src.push_str(
            "class Registry:\n    def __init__(self):\n        self.strict_mode = False\n",
        );
        crate::scan::temp_map(&[("big.py", src)])
    }

    #[test]
    fn a_capped_outline_keeps_more_entries_while_room_is_left() {
        let (_d, map) = registry_map(200);
        let budget = 1_000;
        let packed = pack(
            &map,
            &descending(&["big.py"]),
            &FlightPlan::new("handle cases", budget),
        );
        let rule = packed.rules.iter().find(|r| r.path == "big.py").unwrap();
        assert_eq!(rule.level, Level::TopLevel, "{rule:?}");
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        let tokens = fitted.rendered.tokens;
        assert!(
            tokens <= budget && tokens * 10 > budget * 8,
            "{tokens} of {budget}"
        );
    }

    #[test]
    fn a_member_the_goal_names_zooms_into_the_items_using_it_inside_a_capped_outline() {
        let (_d, map) = registry_map(200);
        let goal = "`Registry.strict_mode` is never enabled";
        let packed = pack(
            &map,
            &descending(&["big.py"]),
            &FlightPlan::new(goal, 1_000),
        );
        let rule = packed.rules.iter().find(|r| r.path == "big.py").unwrap();
        assert!(
            rule.focus.iter().any(|f| f == "Registry.__init__"),
            "{rule:?}"
        );
    }

    #[test]
    fn signatures_too_long_for_the_budget_are_capped_to_what_is_left() {
        // One file whose signatures outgrow the budget: the rest of the budget shows as many
        // of them as fit, not its two top-level lines alone.
        let (_d, map) = wide_map(1);
        let budget = 400;
        let plan = FlightPlan::new("the work", budget);
        let packed = pack(&map, &descending(&["f00.rs"]), &plan);
        let rule = packed.rules.iter().find(|r| r.path == "f00.rs").unwrap();
        assert_eq!(rule.level, Level::Signatures, "{rule:?}");
        assert!(rule.max_items.is_some_and(|m| m < 32), "{rule:?}");
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        assert!(fitted.degraded.is_empty(), "{:?}", fitted.degraded);
        let tokens = fitted.rendered.tokens;
        assert!(tokens <= budget && tokens > budget / 2, "{tokens}");
        assert!(
            fitted.rendered.text.contains("more items"),
            "{}",
            fitted.rendered.text
        );
    }

    #[test]
    fn the_function_a_trace_failed_in_is_shown_before_the_second_file_whole() {
        // `small.rs` would be whole in the place of a zoom that needs a rescue; but the
        // goal's panic happened inside `add_vary_header` (lines 256-270 of `big.rs`).
        let (_d, map, ranking, _) = vary_fixture(0.7, 5);
        let probe = FlightPlan::new(VARY_GOAL, 100_000);
        let mut costs = Costs::new(&map, &probe);
        let b = costs.index("big.rs").unwrap();
        let budget = costs.cost(b, Level::TopLevel).0 + 100;
        let goal = "thread 'main' panicked at big.rs:260:9:\nattempt to multiply with overflow";
        let packed = pack(&map, &ranking, &FlightPlan::new(goal, budget));
        let big = packed.rules.iter().find(|r| r.path == "big.rs").unwrap();
        assert!(around_vary(&big.focus), "{big:?}");
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        assert!(fitted.rendered.tokens <= budget);
        let text = &fitted.rendered.text;
        assert!(
            text.contains("    let value_11 = input.len() * 11 + limit;"),
            "{text}"
        );
    }

    #[test]
    fn a_best_file_whose_whole_outline_leaves_no_room_is_zoomed_into_with_a_capped_one() {
        // A budget smaller than `big.rs`'s whole top-level outline plus the item the goal
        // names: around the item, a capped outline.
        let (_d, map, ranking, _) = vary_fixture(0.3, 5);
        let probe = FlightPlan::new(VARY_GOAL, 100_000);
        let mut costs = Costs::new(&map, &probe);
        let b = costs.index("big.rs").unwrap();
        let outline = costs.cost(b, Level::TopLevel).0;
        let budget = outline + 100;
        let goal = "`add_vary_header` forgets the header";
        let packed = pack(&map, &ranking, &FlightPlan::new(goal, budget));
        let big = packed.rules.iter().find(|r| r.path == "big.rs").unwrap();
        assert!(around_vary(&big.focus), "{big:?}");
        assert!(big.max_items.is_some_and(|m| m < 40), "{big:?}");
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        assert!(fitted.degraded.is_empty(), "{:?}", fitted.degraded);
        assert!(
            fitted.rendered.tokens <= budget,
            "{}",
            fitted.rendered.tokens
        );
        let text = &fitted.rendered.text;
        assert!(text.contains("pub fn add_vary_header(input"), "{text}");
        assert!(text.contains("more top-level items"), "{text}");
        let shown = fitted
            .rendered
            .shown
            .iter()
            .find(|s| s.path == "big.rs")
            .unwrap();
        assert!(
            shown.omitted > 0 && !shown.full_lines.is_empty(),
            "{shown:?}"
        );
        // A goal that only shares words with the item does not cut the outline for it.
        let packed = pack(&map, &ranking, &FlightPlan::new(VARY_GOAL, budget));
        let big = packed.rules.iter().find(|r| r.path == "big.rs").unwrap();
        assert!(big.focus.is_empty(), "{big:?}");
    }

    #[test]
    fn a_zoom_counts_the_files_head_that_comes_with_its_items() {
        // A long head of imports, shown with any focused item: the best item does not fit
        // beside it, a smaller one does (counting without the head took the best item, went
        // over, and dropped it, leaving nothing).
        let mut text: String = (0..55)
            .map(|k| format!("import package_module_{k} as alias_{k}\n"))
            .collect();
        text.push_str("\n\ndef parse_header(x):\n");
        for i in 0..15 {
            text.push_str(&format!("    value_{i} = x * {i} + header_count\n"));
        }
        text.push_str("    return x\n\n\ndef small_header(x):\n    return x\n");
        for k in 0..5 {
            text.push_str(&format!("\n\ndef other_{k}(y):\n    return y\n"));
        }
        let (_d, map) = crate::scan::temp_map(&[("mod.py".to_string(), text)]);
        let plan = FlightPlan::new("fix `parse_header` for the header", 100_000);
        let f = &map.files()[0];
        let cost = |focus: &[&str]| {
            let focus: Vec<String> = focus.iter().map(|s| s.to_string()).collect();
            file_block(f, Level::TopLevel, &focus, plan.tokenizer).1
        };
        let allowance = cost(&["small_header"]) + 5;
        assert!(cost(&["parse_header"]) > allowance);
        let mut costs = Costs::new(&map, &plan);
        let used = zoom(&mut costs, &map, &plan, 0, (allowance, true)).expect("an item fits");
        assert!(used <= allowance, "{used} > {allowance}");
        assert_eq!(costs.focus[&0], ["small_header"]);
    }

    #[test]
    fn the_item_a_goal_is_clearly_about_is_zoomed_into_inside_a_capped_outline() {
        // A long outline of small string filters and one long `do_truncate`: beside the whole
        // outline only a small filter fits, which says little of the goal.
        let mut text: String = (0..120)
            .map(|i| {
                format!("def do_upper_{i}(s):\n    \"\"\"Return the full string upper-cased.\"\"\"\n    return s.upper()\n\n")
            })
            .collect();
        text.push_str("def do_size(s):\n    \"\"\"Its length.\"\"\"\n    return len(s)\n\n");
        text.push_str("def do_truncate(s, length=255, leeway=0):\n    \"\"\"Truncate within leeway; return the full string when short.\"\"\"\n");
        for i in 0..30 {
            text.push_str(&format!("    _ = 123456789012345678901234567890 + {i}\n"));
        }
        text.push_str("    return s\n");
        let (_d, map) = crate::scan::temp_map(&[("filters.py".to_string(), text)]);
        let plan = FlightPlan::new(
            "truncate with leeway=0 returns the full string over the length",
            100_000,
        );
        let f = &map.files()[0];
        let cost = |focus: &[&str]| {
            let focus: Vec<String> = focus.iter().map(|s| s.to_string()).collect();
            file_block(f, Level::TopLevel, &focus, plan.tokenizer).1
        };
        let allowance = cost(&[]) + 40;
        assert!(cost(&["do_truncate"]) > allowance);
        let mut costs = Costs::new(&map, &plan);
        let used = zoom(&mut costs, &map, &plan, 0, (allowance, true)).expect("a zoom");
        assert!(used <= allowance, "{used} > {allowance}");
        assert!(
            costs.focus[&0].contains(&"do_truncate".to_string()),
            "{:?}",
            costs.focus[&0]
        );
        assert!(costs.limits.contains_key(&0), "inside a capped outline");
    }

    #[test]
    fn a_weaker_whole_file_gives_way_to_the_best_files_items() {
        // On a small budget the zoomed file does not fit beside `small.rs` whole, even in a
        // pair's share: the clearly weaker file gives way (the top-up may show it whole again).
        let sizes = |[budget, zoomed, small]: [usize; 3]| {
            assert!(
                zoomed > budget * 85 / 100 - small && zoomed < budget * 6 / 10,
                "zoomed {zoomed}, budget {budget}, small {small}"
            );
        };
        let (big, small, shown) = vary_packed(0.5, 60, sizes);
        assert!(around_vary(&big.focus), "{big:?}");
        assert!(shown);
        assert!(small.level >= Level::TopLevel, "{small:?}");
    }

    /// Packs `big.rs` (forty functions, every one about the goal, far over the budget) ranked
    /// first and `small.rs` (whole at 30 % of the budget) ranked second with `second`: their
    /// rules, and the tokens of `small.rs` whole and of the budget.
    fn runner_up_packed(second: f64, tail: usize) -> (Rule, Rule, [usize; 2]) {
        let (_d, map, ranking) = big_and_small(|m| format!("vary_header_{m}"), 30, second, tail);
        let probe = FlightPlan::new(VARY_GOAL, 100_000);
        let mut costs = Costs::new(&map, &probe);
        let whole_small = costs.cost(costs.index("small.rs").unwrap(), Level::Full).0;
        let budget = whole_small * 10 / 3;
        let whole_big = costs.cost(costs.index("big.rs").unwrap(), Level::Full).0;
        assert!(
            whole_big > 2 * budget,
            "the fixture needs a file over the budget"
        );
        let packed = pack(&map, &ranking, &FlightPlan::new(VARY_GOAL, budget));
        let rule = |p: &str| packed.rules.iter().find(|r| r.path == p).cloned().unwrap();
        let fitted = fit(&map, packed.clone(), &HashMap::new()).unwrap();
        assert!(
            fitted.rendered.tokens <= budget,
            "{}",
            fitted.rendered.tokens
        );
        (rule("big.rs"), rule("small.rs"), [whole_small, budget])
    }

    #[test]
    fn an_unclear_first_file_shows_the_long_item_the_goal_names_as_code() {
        // `helpers.py`: forty short functions and a long `url_for`, which the goal names;
        // `app.py` scores 0.9 of it. `url_for` takes a third of the budget: over the quarter
        // an unclear first file may take, within the half it may when the goal points into it.
        let short: String = (0..40)
            .map(|k| {
                let body: String = (0..8).map(|i| format!("    value = value * {i} + {k}\n")).collect();
                format!("def helper_{k}(value):\n    \"\"\"Part {k} of a URL.\"\"\"\n{body}    return value\n\n\n")
            })
            .collect();
        let long: String = (0..60)
            .map(|i| format!("    part_{i} = values.get(\"p{i}\", endpoint)\n"))
            .collect();
        let helpers =
            format!("{short}def url_for(endpoint, **values):\n    \"\"\"Build a URL.\"\"\"\n{long}    return endpoint\n");
        let app: String = (0..300)
            .map(|k| format!("def view_{k}(request):\n    return request.url + \"{k}\"\n\n\n"))
            .collect();
        let mut files = vec![
            ("helpers.py".to_string(), helpers),
            ("app.py".to_string(), app),
        ];
        files.extend((0..10).map(|k| (format!("c{k:02}.rs"), long_fns(k, 5))));
        let (_d, map) = crate::scan::temp_map(&files);
        let mut ranking = descending(&["helpers.py", "app.py"]);
        ranking.extend(candidates(10));
        let goal = "url_for ignores SERVER_NAME outside a request";
        let probe = FlightPlan::new(goal, 100_000);
        let mut costs = Costs::new(&map, &probe);
        let h = costs.index("helpers.py").unwrap();
        let a = costs.index("app.py").unwrap();
        let zoomed = file_block(
            &map.files()[h],
            Level::TopLevel,
            &["url_for".into()],
            probe.tokenizer,
        )
        .1;
        let budget = zoomed * 3;
        assert!(costs.cost(h, Level::Full).0 > budget * 85 / 100);
        assert!(costs.cost(a, Level::Full).0 > budget);
        let packed = pack(&map, &ranking, &FlightPlan::new(goal, budget));
        let rule = packed
            .rules
            .iter()
            .find(|r| r.path == "helpers.py")
            .unwrap();
        assert!(rule.focus.iter().any(|f| f == "url_for"), "{rule:?}");
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        assert!(fitted.rendered.tokens <= budget);
        assert!(fitted.rendered.text.contains("part_59 = values"));
        // A goal that only shares words with the file keeps the quarter: no long item.
        let words = "build the parts of a URL for an endpoint";
        let packed = pack(&map, &ranking, &FlightPlan::new(words, budget));
        let rule = packed
            .rules
            .iter()
            .find(|r| r.path == "helpers.py")
            .unwrap();
        assert!(!rule.focus.iter().any(|f| f == "url_for"), "{rule:?}");
    }

    #[test]
    fn an_unclear_first_file_passed_over_for_a_second_whole_still_shows_its_items() {
        // `conn.rs`: a struct whose docs match the goal best and its one `impl` of 120
        // methods, over the budget, one of them about closing the connection. `dispatch.rs`,
        // a close second, is whole in half the budget. The struct comes with its `impl`, so
        // the plain choice of items (which counted it alone) was left with none; then the
        // first file showed a capped outline alone. The second stays whole; the first shows
        // the method beside it.
        let head: String = (0..30)
            .map(|k| format!("use crate::module_{k}::{{Thing{k}, Other{k}}};\n"))
            .collect();
        let methods: String = (0..120)
            .map(|m| {
                let body: String = (0..10)
                    .map(|i| format!("        let v{i} = self.state.value({i}, {m});\n"))
                    .collect();
                format!("    fn step_{m}(&mut self) {{\n{body}    }}\n\n")
            })
            .collect();
        let close: String = (0..12)
            .map(|i| format!("        self.io.flush_pending({i});\n"))
            .collect();
        let conn = format!(
            "{head}\n/// The connection: sends `connection: close` when the connection is ending.\npub struct Conn {{\n    state: State,\n}}\n\nimpl Conn {{\n{methods}    \
             /// Flushes what is pending.\n    \
             fn close_when_ending(&mut self) {{\n{close}    }}\n}}\n"
        );
        let dispatch: String = (0..200)
            .map(|k| {
                format!("pub fn poll_{k}(d: &mut Dispatcher) -> bool {{\n    d.poll({k})\n}}\n")
            })
            .collect();
        let mut files = vec![
            ("conn.rs".to_string(), conn),
            ("dispatch.rs".to_string(), dispatch),
        ];
        files.extend((0..10).map(|k| (format!("c{k:02}.rs"), long_fns(k, 5))));
        let (_d, map) = crate::scan::temp_map(&files);
        let mut ranking = descending(&["conn.rs", "dispatch.rs"]);
        ranking.extend(candidates(10));
        let goal = "send connection close when the connection is ending";
        let probe = FlightPlan::new(goal, 100_000);
        let mut costs = Costs::new(&map, &probe);
        let conn = costs.cost(costs.index("conn.rs").unwrap(), Level::Full).0;
        let dispatch = costs
            .cost(costs.index("dispatch.rs").unwrap(), Level::Full)
            .0;
        let budget = dispatch * 2;
        assert!(
            conn > budget,
            "the fixture needs a first file over the budget"
        );
        let packed = pack(&map, &ranking, &FlightPlan::new(goal, budget));
        assert_eq!(level_in(&packed, "dispatch.rs"), Some(Level::Full));
        let rule = packed.rules.iter().find(|r| r.path == "conn.rs").unwrap();
        assert!(
            rule.focus.iter().any(|f| f.ends_with("close_when_ending")),
            "{rule:?}"
        );
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        assert!(fitted.rendered.tokens <= budget);
        assert!(fitted.rendered.text.contains("self.io.flush_pending(11);"));
    }

    #[test]
    fn an_outer_frame_s_file_shows_the_function_of_its_frame() {
        // The trace fails in `parser.py` (small, first, whole) called from `register` in
        // `routes.py`, far over the budget. `routes.py` shows `register`, not only an outline.
        let routes: String = (0..100)
            .map(|k| {
                let body: String = (0..6)
                    .map(|i| format!("    table.add({k}, {i})\n"))
                    .collect();
                format!("def route_{k}(table):\n{body}    return table\n\n\n")
            })
            .collect();
        let register = "def register(app, rule):\n    spec = parse(rule)\n    app.rules.append(spec)\n    return spec\n";
        let routes = format!("{routes}{register}");
        let line = routes
            .lines()
            .position(|l| l.contains("spec = parse(rule)"))
            .unwrap()
            + 1;
        let goal = format!(
            "Registering a route with a trailing colon crashes\n\nTraceback (most recent call last):\n  File \"app/routes.py\", line {line}, in register\n    spec = parse(rule)\n  File \"app/parser.py\", line 2, in parse\n    raise ValueError(\"bad rule\")\nValueError: bad rule\n"
        );
        let mut files = vec![
            (
                "app/parser.py".to_string(),
                "def parse(rule):\n    raise ValueError(\"bad rule\")\n".to_string(),
            ),
            ("app/routes.py".to_string(), routes),
        ];
        // `c00.rs`, ranked second, is too big to be whole: the one zoom into a weaker file is
        // its turn.
        files.extend((0..10).map(|k| {
            (
                format!("c{k:02}.rs"),
                long_fns(k, if k == 0 { 200 } else { 5 }),
            )
        }));
        let (_d, map) = crate::scan::temp_map(&files);
        let mut ranking = descending(&["app/parser.py", "c00.rs", "c01.rs", "app/routes.py"]);
        ranking.extend(candidates(10).filter(|c| c.path != "c00.rs" && c.path != "c01.rs"));
        let budget = 4_000;
        let probe = FlightPlan::new(&goal, 100_000);
        let mut costs = Costs::new(&map, &probe);
        assert!(
            costs
                .cost(costs.index("app/routes.py").unwrap(), Level::Full)
                .0
                > budget
        );
        let packed = pack(&map, &ranking, &FlightPlan::new(&goal, budget));
        let rule = packed
            .rules
            .iter()
            .find(|r| r.path == "app/routes.py")
            .unwrap();
        assert_eq!(rule.focus, ["register"], "{rule:?}");
        let fitted = fit(&map, packed, &HashMap::new()).unwrap();
        assert!(fitted.rendered.tokens <= budget);
        assert!(fitted.rendered.text.contains("app.rules.append(spec)"));
    }

    #[test]
    fn a_clear_first_file_zoomed_into_leaves_room_for_a_close_second_whole() {
        // Every item of `big.rs` is about the goal: zoomed into, it would fill its share.
        // A second scoring 0.7 of it (clear of it, yet close) is shown whole beside its
        // items; one scoring 0.5 leaves the room to the best file.
        let (big, small, [whole_small, budget]) = runner_up_packed(0.7, 0);
        assert!(
            whole_small as f64 > CHEAP_SHARE * budget as f64,
            "the second must not count as cheap"
        );
        assert_eq!(small.level, Level::Full, "{small:?}");
        assert!(!big.focus.is_empty(), "{big:?}");
        let (big, small, _) = runner_up_packed(0.5, 0);
        assert!(small.level < Level::Full, "{small:?}");
        assert!(big.focus.len() > 1, "{big:?}");
    }

    #[test]
    fn the_close_second_a_zoom_kept_room_for_is_whole_though_the_tail_s_outlines_are_long() {
        // Ten more candidates whose top-level outlines (forty functions each) cannot all fit:
        // the zoom kept room for the second file whole and for the first outlines (capped),
        // and the second is shown whole in that room.
        let (big, small, _) = runner_up_packed(0.7, 10);
        assert_eq!(small.level, Level::Full, "{small:?}");
        assert!(!big.focus.is_empty(), "{big:?}");
    }

    #[test]
    fn a_cheap_third_file_joins_two_whole_ones_past_their_share_while_the_outlines_fit() {
        // Two long functions, a short one ranked third and ten candidates with cheap
        // outlines whose signatures would take what is left: the first two take 66 % of the
        // budget, the third 8 % more, past the 70 % of whole files, within the first file's
        // 85 %. (Without the rule the third waits for the top-up, after the signatures.)
        let long = |k: usize, n: usize| -> String {
            let body: String = (0..n)
                .map(|i| format!("    let x{i} = {i} * {k};\n"))
                .collect();
            format!("pub fn work_{k}() {{\n{body}}}\n")
        };
        let mut files = vec![
            ("big0.rs".to_string(), long(0, 120)),
            ("big1.rs".to_string(), long(1, 120)),
            ("small.rs".to_string(), long(2, 33)),
        ];
        files.extend((0..10).map(|k| {
            let methods: String = (0..8)
                .map(|m| format!("    /// Does step {m} of the work with care and explains itself at length.\n    pub fn step_{m}(&self, input: &str, limit: usize) -> Option<String> {{ None }}\n"))
                .collect();
            (format!("c{k:02}.rs"), format!("pub struct C{k};\nimpl C{k} {{\n{methods}}}\n"))
        }));
        let (_d, map) = crate::scan::temp_map(&files);
        let mut ranking = descending(&["big0.rs", "big1.rs", "small.rs"]);
        ranking.extend(candidates(10));
        let probe = FlightPlan::new("goal", 100_000);
        let mut costs = Costs::new(&map, &probe);
        let mut whole = |p: &str| costs.cost(costs.index(p).unwrap(), Level::Full).0;
        let (pair, small) = (whole("big0.rs") + whole("big1.rs"), whole("small.rs"));
        let budget = (pair as f64 / 0.66) as usize;
        let share = small as f64 / budget as f64;
        assert!((0.06..=CHEAP_SHARE).contains(&share), "{share}");
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", budget));
        let level_of = |path: &str| level_in(&packed, path);
        assert_eq!(level_of("small.rs"), Some(Level::Full), "{packed:?}");
        assert_eq!(level_of("big0.rs"), Some(Level::Full));
        assert_eq!(level_of("big1.rs"), Some(Level::Full));
        for k in 0..10 {
            assert!(
                level_of(&format!("c{k:02}.rs")) >= Some(Level::TopLevel),
                "{packed:?}"
            );
        }
    }

    #[test]
    fn a_large_budget_shows_more_files_whole_than_the_first_six_within_seventy_percent() {
        // Seven files of over 10 % of the budget each ranked first (functions with long
        // bodies: whole, they cost far more than their signatures), then sixty with cheap
        // outlines and costly signatures: at 30k to 45k tokens the seven take 75 %, past the
        // 70 % share and past six files. (With only those, the 7th was an outline beside the
        // signatures of the tail.) The tail's first candidates keep their outlines.
        let mut files: Vec<(String, String)> = (0..7)
            .map(|k| (format!("m{k:02}.rs"), long_fns(k, 60)))
            .collect();
        let (_w, wide) = wide_map(60);
        files.extend(wide.files().iter().map(|f| {
            let text = std::fs::read_to_string(wide.root().join(&f.path)).unwrap();
            (f.path.replacen('f', "c", 1), text)
        }));
        let (_d, map) = crate::scan::temp_map(&files);
        let mut ranking = numbered("m", 7, |k| 1.0 - 0.05 * k as f64);
        ranking.extend(numbered("c", 60, |_| 0.3));
        let probe = FlightPlan::new("goal", 100_000);
        let mut costs = Costs::new(&map, &probe);
        let costs: Vec<usize> = (0..7)
            .map(|k| {
                costs
                    .cost(costs.index(&format!("m{k:02}.rs")).unwrap(), Level::Full)
                    .0
            })
            .collect();
        let budget = costs.iter().sum::<usize>() * 4 / 3;
        assert!((30_000..45_000).contains(&budget), "{budget}");
        // None is cheap enough to join past the share on that count.
        assert!(costs.iter().all(|&c| c > budget / 10), "{costs:?}");
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", budget));
        for k in 0..7 {
            assert_eq!(
                level_in(&packed, &format!("m{k:02}.rs")),
                Some(Level::Full),
                "{k}"
            );
        }
        for k in 0..10 {
            assert!(level_in(&packed, &format!("c{k:02}.rs")) >= Some(Level::TopLevel));
        }
    }

    #[test]
    fn fitting_lowers_the_least_valuable_files_to_their_paths_before_the_best_loses_a_level() {
        // Three files, each one function with a long body: whole they cost much, outlined
        // little.
        let files: Vec<(String, String)> = ["best.rs", "mid.rs", "low.rs"]
            .iter()
            .map(|name| {
                let body: String = (0..60)
                    .map(|k| format!("    let v{k} = input.wrapping_mul({k}).rotate_left(3);\n"))
                    .collect();
                (
                    name.to_string(),
                    format!(
                        "/// The work.\npub fn work(input: u64) -> u64 {{\n{body}    input\n}}\n"
                    ),
                )
            })
            .collect();
        let (_d, map) = crate::scan::temp_map(&files);
        let mut plan = FlightPlan::new("goal", 100_000);
        plan.rules = ["best.rs", "mid.rs", "low.rs"]
            .iter()
            .map(|p| Rule::new(*p, Level::Full))
            .collect();
        let all = render(&map, &plan).unwrap().tokens;
        let mut costs = Costs::new(&map, &plan);
        let whole = costs.cost(costs.index("best.rs").unwrap(), Level::Full).0;
        // Room for one whole file and a little more, not for two.
        plan.token_budget = all - 2 * whole + 40;
        let values: HashMap<String, f64> = [("best.rs", 3.0), ("mid.rs", 2.0), ("low.rs", 1.0)]
            .into_iter()
            .map(|(p, v)| (p.to_string(), v))
            .collect();
        let fitted = fit(&map, plan.clone(), &values).unwrap();
        assert!(fitted.fits && fitted.rendered.tokens <= plan.token_budget);
        assert_eq!(
            fitted.rendered.level_of("best.rs"),
            Level::Full,
            "{:?}",
            fitted.degraded
        );
        assert!(
            fitted.rendered.level_of("low.rs") <= Level::Path,
            "{:?}",
            fitted.degraded
        );
        assert!(fitted.rendered.level_of("mid.rs") < Level::Full);
    }

    #[test]
    fn a_zoom_that_no_longer_fits_gives_way_to_the_plain_outline() {
        let body: String = (0..80)
            .map(|k| format!("    let v{k} = input.wrapping_mul({k}).rotate_left(3);\n"))
            .collect();
        let zoomed = format!(
            "/// The work.\npub fn work(input: u64) -> u64 {{\n{body}    input\n}}\n\npub fn rest() {{}}\n"
        );
        let (_d, map) = crate::scan::temp_map(&[
            (
                "best.rs".to_string(),
                "pub fn best() -> u8 { 1 }\n".to_string(),
            ),
            ("zoomed.rs".to_string(), zoomed),
        ]);
        let mut plan = FlightPlan::new("goal", 100_000);
        plan.rules = vec![
            Rule::new("best.rs", Level::Full),
            Rule {
                focus: vec!["work".into()],
                ..Rule::new("zoomed.rs", Level::TopLevel)
            },
        ];
        let mut outline = plan.clone();
        outline.rules[1].focus.clear();
        let plain = render(&map, &outline).unwrap().tokens;
        assert!(render(&map, &plan).unwrap().tokens > plain + 200);
        // Room for the plain outline, not for the item at full source.
        plan.token_budget = plain + 5;
        let values: HashMap<String, f64> = [("best.rs", 2.0), ("zoomed.rs", 1.0)]
            .into_iter()
            .map(|(p, v)| (p.to_string(), v))
            .collect();
        let fitted = fit(&map, plan.clone(), &values).unwrap();
        assert!(fitted.fits && fitted.rendered.tokens <= plan.token_budget);
        assert_eq!(fitted.rendered.level_of("best.rs"), Level::Full);
        assert_eq!(
            fitted.rendered.level_of("zoomed.rs"),
            Level::TopLevel,
            "{}",
            fitted.rendered.text
        );
        let rule = fitted.plan.rules.iter().find(|r| r.path == "zoomed.rs");
        assert!(rule.is_some_and(|r| r.focus.is_empty()));
        // Reported as lowered: it lost the item it showed.
        assert!(fitted.degraded.iter().any(|(p, _)| p == "zoomed.rs"));
    }

    #[test]
    fn a_zoom_that_no_longer_fits_keeps_the_items_the_goal_is_most_about() {
        // Three long functions shown at full source; the budget has room for one beside the
        // outline. The goal names `send_from_directory`: it stays, the other two go.
        let long = |name: &str| {
            let body: String = (0..40)
                .map(|k| format!("    v{k} = path.join({k})\n"))
                .collect();
            format!("def {name}(path):\n{body}    return path\n\n\n")
        };
        let text = format!(
            "{}{}{}",
            long("send_file"),
            long("send_from_directory"),
            long("get_root_path")
        );
        let (_d, map) = crate::scan::temp_map(&[("helpers.py".to_string(), text)]);
        let goal = "send_from_directory raises 500 instead of 404";
        let mut plan = FlightPlan::new(goal, 100_000);
        let focus: Vec<String> = ["send_file", "send_from_directory", "get_root_path"]
            .map(String::from)
            .into();
        plan.rules = vec![Rule {
            focus: focus.clone(),
            ..Rule::new("helpers.py", Level::TopLevel)
        }];
        let mut one = plan.clone();
        one.rules[0].focus = vec!["send_from_directory".into()];
        let room = render(&map, &one).unwrap().tokens;
        assert!(render(&map, &plan).unwrap().tokens > room + 300);
        plan.token_budget = room + 5;
        let values: HashMap<String, f64> = [("helpers.py".to_string(), 1.0)].into();
        let fitted = fit(&map, plan.clone(), &values).unwrap();
        assert!(fitted.fits && fitted.rendered.tokens <= plan.token_budget);
        let rule = fitted.plan.rules.iter().find(|r| r.path == "helpers.py");
        assert_eq!(
            rule.map(|r| r.focus.clone()),
            Some(vec!["send_from_directory".to_string()]),
            "{}",
            fitted.rendered.text
        );
        assert!(fitted.degraded.iter().any(|(p, _)| p == "helpers.py"));
    }

    #[test]
    fn a_file_asked_for_as_an_outline_with_nothing_to_outline_is_raised_to_full_source() {
        let (_d, map) = crate::scan::temp_map(&[
            (
                "__init__.py".to_string(),
                "from .core import run\n".to_string(),
            ),
            (
                "notes.txt".to_string(),
                "Run the checks first.\n".to_string(),
            ),
            ("core.py".to_string(), "def run():\n    pass\n".to_string()),
        ]);
        let plan = FlightPlan::new("goal", 1_000);
        let mut costs = Costs::new(&map, &plan);
        for path in ["__init__.py", "notes.txt"] {
            let i = costs.index(path).unwrap();
            let mut remaining = 1_000;
            assert_eq!(
                costs.raise(i, Level::TopLevel, &mut remaining),
                Some(Level::Full),
                "{path}"
            );
            assert!(remaining < 1_000);
            // Too little room: nothing changes, nothing is taken.
            let mut one = 1;
            assert_eq!(costs.raise(i, Level::TopLevel, &mut one), None);
            assert_eq!(one, 1);
            // A file the packer left at its path stays there.
            assert_eq!(costs.raise(i, Level::Path, &mut remaining), None, "{path}");
        }
        // A file with an outline goes one level at a time.
        let core = costs.index("core.py").unwrap();
        let mut remaining = 1_000;
        assert_eq!(
            costs.raise(core, Level::TopLevel, &mut remaining),
            Some(Level::Signatures)
        );
    }

    #[test]
    fn a_document_with_nothing_to_outline_waits_for_the_full_source_of_files_ranked_above() {
        // Five files of long functions, too weak to be whole when packed, and a long document
        // ranked after them: the top-up gives the files their signatures and then their full
        // source; the document, whole in one step, waits for them (it took their room).
        let mut files: Vec<(String, String)> = (0..5)
            .map(|k| (format!("c{k:02}.rs"), long_fns(k, 20)))
            .collect();
        let prose: String = (0..180)
            .map(|l| format!("Line {l} of the notes says what the tool does and why it does it.\n"))
            .collect();
        files.push(("notes.md".to_string(), prose));
        let (_d, map) = crate::scan::temp_map(&files);
        let mut ranking = numbered("c", 5, |k| 0.2 - 0.01 * k as f64);
        ranking.push(Scored {
            path: "notes.md".into(),
            score: 0.1,
            reasons: Vec::new(),
        });
        let probe = FlightPlan::new("goal", 100_000);
        let mut costs = Costs::new(&map, &probe);
        let code: usize = (0..5)
            .map(|k| {
                costs
                    .cost(costs.index(&format!("c{k:02}.rs")).unwrap(), Level::Full)
                    .0
            })
            .sum();
        let doc = costs.cost(costs.index("notes.md").unwrap(), Level::Full).0;
        assert!(doc * 2 < code && doc > code / 3, "{doc} {code}");
        let budget = code + doc / 2 + 200;
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", budget));
        for k in 0..5 {
            let path = format!("c{k:02}.rs");
            assert_eq!(
                level_in(&packed, &path),
                Some(Level::Full),
                "{path} {packed:?}"
            );
        }
        assert_ne!(level_in(&packed, "notes.md"), Some(Level::Full));
    }

    #[test]
    fn budget_left_after_the_map_shows_the_files_left_at_their_paths_whole() {
        // A budget larger than the repository: the weak constants module (its path, nothing
        // to outline) and the unranked readme are whole too, not paths beside unspent room.
        let (_d, map) = crate::scan::temp_map(&[
            ("core.rs", "pub fn run() -> u32 {\n    7\n}\n"),
            ("consts.py", "LIMIT = 10\nNAME = 'tool'\n"),
            ("README.md", "The tool runs things.\n"),
        ]);
        let ranking = vec![
            Scored {
                path: "core.rs".into(),
                score: 1.0,
                reasons: Vec::new(),
            },
            Scored {
                path: "consts.py".into(),
                score: 0.01,
                reasons: Vec::new(),
            },
        ];
        let packed = pack(&map, &ranking, &FlightPlan::new("goal", 100_000));
        for path in ["core.rs", "consts.py", "README.md"] {
            assert_eq!(
                level_in(&packed, path),
                Some(Level::Full),
                "{path} {packed:?}"
            );
        }
    }

    #[test]
    fn a_refit_gives_the_best_file_the_room_of_worse_files_paths() {
        let body: String = (0..60)
            .map(|k| format!("    let v{k} = input.wrapping_mul({k}).rotate_left(3);\n"))
            .collect();
        let mut files = vec![(
            "best.rs".to_string(),
            format!("/// The work.\npub fn work(input: u64) -> u64 {{\n{body}    input\n}}\n"),
        )];
        files.extend((0..40).map(|k| (format!("note_{k:02}.txt"), format!("note {k}\n"))));
        let (_d, map) = crate::scan::temp_map(&files);
        let mut plan = FlightPlan::new("goal", 100_000);
        plan.rules = vec![
            Rule::new("best.rs", Level::Full),
            Rule::new("note_*", Level::Path),
        ];
        let mut values: HashMap<String, f64> =
            (0..40).map(|k| (format!("note_{k:02}.txt"), 0.1)).collect();
        values.insert("best.rs".into(), 1.0);
        // Room for every path and the best file's path, a few tokens more: its outline needs
        // the room of some notes.
        let mut paths_only = plan.clone();
        paths_only.rules[0].level = Level::Path;
        plan.token_budget = render(&map, &paths_only).unwrap().tokens + 4;
        let fitted = fit(&map, plan.clone(), &values).unwrap();
        assert!(fitted.fits && fitted.rendered.tokens <= plan.token_budget);
        assert!(
            fitted.rendered.level_of("best.rs") >= Level::TopLevel,
            "{}",
            fitted.rendered.text
        );
        let hidden = (0..40)
            .filter(|k| fitted.rendered.level_of(&format!("note_{k:02}.txt")) == Level::Hidden)
            .count();
        assert!((1..40).contains(&hidden), "{hidden} notes hidden");
        assert!(fitted
            .degraded
            .iter()
            .any(|(p, l)| p.starts_with("note_") && *l == Level::Hidden));
    }
}
