//! `kdrift query --list` and `kdrift query NAME --param k=v`.

use kdrift_store::{list_queries, run_query};
use std::io::Write;
use std::process::ExitCode;

use crate::args::{Cli, Output, QueryArgs};
use crate::render;

/// Lists the queries, or runs one. Exit 1 when a query returns no row.
pub fn run(cli: &Cli, args: &QueryArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::render::stdout();
    if args.list {
        let readable: Vec<_> = list_queries().into_iter().filter(|q| q.read_only).collect();
        let internal = readable.iter().filter(|q| !q.user_facing).count();
        let list: Vec<_> = readable.into_iter().filter(|q| args.all || q.user_facing).collect();
        if cli.output == Output::Json {
            render::json(&mut out, &list)?;
        } else {
            render::query::list(&mut out, &list)?;
            if !args.all && internal > 0 {
                writeln!(
                    out,
                    "{} more: the analyses' internal building blocks (`kdrift query --list --all`)",
                    internal
                )?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.name.as_deref().unwrap_or_default();
    let store = crate::cmd::open_existing_store(cli)?;
    let result = run_query(&store, name, &args.params)?;
    match cli.output {
        Output::Json => render::json(&mut out, &render::query::as_objects(&result))?,
        Output::Table => render::query::table(&mut out, &result)?,
    }
    Ok(if result.rows.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
