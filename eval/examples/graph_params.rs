//! Recall of the HNSW graph against an exact scan on the bench's synthetic vectors, for
//! several graph degrees and build beams: what the engine's graph parameters buy at a given
//! scale, without the rest of the engine (no store, no keyword index, no embedder).
//!
//! ```text
//! cargo run --release -p navigator-eval --example graph_params -- 1000000 16:200,32:200 160,320,640
//! ```
//!
//! Arguments: the item count; `degree:build_beam` pairs; search beams. Each graph is built
//! over 8-bit codes as the engine builds it (usearch int8 cosine, parallel adds on every
//! core), then each search beam's candidates are re-ranked by the exact vectors and the best
//! 10 compared with the exact 10 nearest of 100 queries. Prints build time, recall@10 and the
//! median single-thread search time per beam.

use navigator_core::ItemType;
use std::io::Write;
use std::time::Instant;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

const TYPES: [ItemType; 3] = [ItemType::Task, ItemType::Resource, ItemType::Project];
const PROBES: usize = 100;
const USAGE: &str = "usage: graph_params N DEGREE:BUILD_BEAM[,...] BEAM[,...]";

fn main() {
    if let Err(e) = run() {
        eprintln!("graph_params: {e}");
        std::process::exit(1);
    }
}

/// The engine's 8-bit code of a vector (`vector::quantize`).
fn quantize(v: &[f32]) -> Vec<i8> {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return vec![0; v.len()];
    }
    let scale = 127.0 / max;
    v.iter().map(|x| (x * scale).round() as i8).collect()
}

fn pairs(arg: &str) -> Result<Vec<(usize, usize)>, Box<dyn std::error::Error>> {
    arg.split(',')
        .map(|p| {
            let (m, e) = p.split_once(':').ok_or(USAGE)?;
            Ok((m.parse()?, e.parse()?))
        })
        .collect()
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, configs, beams] = args.as_slice() else {
        return Err(USAGE.into());
    };
    let n: usize = n.parse()?;
    let configs = pairs(configs)?;
    let beams: Vec<usize> = beams.split(',').map(str::parse).collect::<Result<_, _>>()?;
    if n == 0 || beams.is_empty() || configs.is_empty() {
        return Err(USAGE.into());
    }
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let t = Instant::now();
    let corpus = navigator_eval::synthetic::corpus(n, &TYPES);
    let truth = corpus.exact_neighbours(PROBES, 10);
    let codes: Vec<Vec<i8>> = corpus.vectors.iter().map(|v| quantize(v)).collect();
    println!(
        "{n} vectors, {threads} threads: corpus and exact neighbours in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    for (degree, build_beam) in configs {
        let graph = Index::new(&IndexOptions {
            dimensions: codes[0].len(),
            metric: MetricKind::Cos,
            quantization: ScalarKind::I8,
            connectivity: degree,
            expansion_add: build_beam,
            expansion_search: beams[0],
            multi: false,
        })?;
        graph.reserve_capacity_and_threads(n, threads)?;
        let t = Instant::now();
        let chunk = n.div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = codes
                .chunks(chunk)
                .enumerate()
                .map(|(part, keys)| {
                    let graph = &graph;
                    scope.spawn(move || {
                        keys.iter().enumerate().try_for_each(|(i, code)| {
                            graph
                                .add((part * chunk + i) as u64, code)
                                .map_err(|e| e.to_string())
                        })
                    })
                })
                .collect();
            workers.into_iter().try_for_each(|w| {
                w.join()
                    .unwrap_or_else(|_| Err("a graph-building thread panicked".into()))
            })
        })?;
        println!(
            "degree {degree}, build beam {build_beam}: built in {:.1} s, {:.0} MB in memory",
            t.elapsed().as_secs_f64(),
            graph.memory_usage() as f64 / 1e6
        );
        for &beam in &beams {
            graph.change_expansion_search(beam);
            let mut recall = 0.0;
            let mut ms = Vec::new();
            for ((_, q), truth) in corpus.queries.iter().zip(&truth) {
                let t = Instant::now();
                let found = graph.search(&quantize(q), beam)?;
                let mut hits: Vec<(u64, f32)> = found
                    .keys
                    .iter()
                    .map(|&k| (k, navigator_core::cosine(q, &corpus.vectors[k as usize])))
                    .collect();
                hits.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
                hits.truncate(10);
                ms.push(t.elapsed().as_secs_f64() * 1000.0);
                let got: Vec<(String, f32)> = hits
                    .into_iter()
                    .map(|(k, s)| (format!("item_{k}"), s))
                    .collect();
                recall += navigator_eval::synthetic::recall(&got, truth);
            }
            ms.sort_by(f64::total_cmp);
            println!(
                "  beam {beam}: recall@10 {:.3}, search p50 {:.2} ms",
                recall / truth.len() as f64,
                ms[ms.len() / 2]
            );
            std::io::stdout().flush()?;
        }
    }
    Ok(())
}
