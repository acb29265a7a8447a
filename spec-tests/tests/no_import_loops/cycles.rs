//! Loops in a directed graph: its strongly connected components and a shortest cycle through
//! one.

use std::collections::BTreeMap;
use std::fmt::Write;

/// A loop at one level of the module tree: its nodes (sorted) and one cycle through them.
#[derive(Debug)]
pub(crate) struct Loop {
    pub(crate) nodes: Vec<String>,
    /// `(node, the use that leads to the next node)`, the last leading back to the first.
    pub(crate) cycle: Vec<(String, String)>,
}

impl Loop {
    pub(crate) fn describe(&self) -> String {
        let mut text = format!("  loop between {}:\n", self.nodes.join(", "));
        for (node, via) in &self.cycle {
            let _ = writeln!(text, "    {node}  uses the next by  {via}");
        }
        text
    }
}

/// The components of more than one node (Tarjan's algorithm, small graphs: recursion is fine).
pub(crate) fn strongly_connected(n: usize, edges: &BTreeMap<(usize, usize), &String>) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<(usize, usize), &'a String>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    pub(crate) fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let successors: Vec<usize> = s.edges.keys().filter(|(a, _)| *a == v).map(|(_, b)| *b).collect();
        for w in successors {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("on the stack");
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// A shortest cycle through the component's first node, with the use along each edge.
pub(crate) fn cycle_through<'a>(
    component: &[usize],
    edges: &BTreeMap<(usize, usize), &'a String>,
) -> Vec<(usize, &'a String)> {
    let start = component[0];
    let inside = |v: &usize| component.contains(v);
    // Breadth first from `start` back to it.
    let mut previous: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    'search: while let Some(v) = queue.pop_front() {
        for &(a, b) in edges.keys() {
            if a == v && inside(&b) {
                if b == start {
                    previous.insert(start, v);
                    break 'search;
                }
                if let std::collections::btree_map::Entry::Vacant(e) = previous.entry(b) {
                    e.insert(v);
                    queue.push_back(b);
                }
            }
        }
    }
    let mut nodes = vec![start];
    let mut v = previous[&start];
    while v != start {
        nodes.push(v);
        v = previous[&v];
    }
    nodes[1..].reverse();
    (0..nodes.len()).map(|k| (nodes[k], edges[&(nodes[k], nodes[(k + 1) % nodes.len()])])).collect()
}
