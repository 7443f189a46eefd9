//! Writing Markdown as mkdocs (Python-Markdown) reads it: text that shows as written, code
//! spans, tables and headings with fixed anchors.

/// `text` shown as written: Markdown's special characters escaped, except inside the code
/// spans it holds (`like this`), which the declarations and help texts use for names.
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
            continue;
        }
        for c in part.chars() {
            match c {
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '&' => out.push_str("&amp;"),
                '\\' | '*' | '_' | '[' | ']' | '|' => {
                    out.push('\\');
                    out.push(c);
                }
                _ => out.push(c),
            }
        }
    }
    out
}

/// `text` as one table cell: its lines joined (a line break would end the row).
pub fn cell(text: &str) -> String {
    self::text(&one_line(text))
}

/// The lines of `text` as one line, paragraphs included.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `code` as a code span, with as many backticks around it as it needs.
pub fn code(code: &str) -> String {
    let mut fence = String::from("`");
    while code.contains(fence.as_str()) {
        fence.push('`');
    }
    let pad = if code.starts_with('`') || code.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{code}{pad}{fence}")
}

/// A table: its header and rows, each cell already Markdown.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    let mut out = line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    out += &line(&vec!["---".to_string(); header.len()]);
    for row in rows {
        assert_eq!(
            row.len(),
            header.len(),
            "a row of {} cells: {row:?}",
            header.len()
        );
        out += &line(row);
    }
    out
}

/// A heading of `level` whose anchor is `id`, whatever its title.
pub fn heading(level: usize, title: &str, id: &str) -> String {
    format!("{} {title} {{#{id}}}\n", "#".repeat(level))
}

/// Preformatted text, as a fenced block.
pub fn block(text: &str) -> String {
    let mut fence = String::from("```");
    while text.contains(fence.as_str()) {
        fence.push('`');
    }
    format!("{fence}text\n{}\n{fence}\n", text.trim_end())
}

/// The line every generated page starts with, under its title.
pub fn generated_from(source: &str) -> String {
    format!(
        "<!-- Generated from {source} by `make reference`; edit the source, not this page \
         (the Rust suite fails when they differ). -->\n"
    )
}

#[test]
fn text_is_escaped_outside_code_spans_only() {
    assert_eq!(
        text("a *b* `c_d|e` <f> g_h [i] j|k"),
        "a \\*b\\* `c_d|e` &lt;f&gt; g\\_h \\[i\\] j\\|k"
    );
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(cell("one\n\ntwo  three"), "one two three");
}
