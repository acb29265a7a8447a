//! One loader: a `.knn` source, or a `.nnet`/ONNX network through the importers, parsed once
//! into a [`Program`]; then [`Program::run`] on either engine, checked and bound once.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use knn_semantics::check::check_program;
use knn_semantics::engine::{Engine, Limit, SearchOptions, StepOptions, run as run_small_step, search};
use knn_semantics::inputs::{InputError, TensorInput, initial_config};
use knn_semantics::syntax::{Elements, Exp, parse_program_with_elements};
use knn_semantics::term::term_of_program;
use knn_semantics::{Config, Profile};

use super::error::{Diagnostic, Failure, KnnError, MAX_DIAGNOSTICS};
use super::import::{ImportOptions, Imported, import_model};
use super::report::{EngineKind, Report, Wanted};
use super::source::Source;
use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_formats::import::emit::skeleton;

/// Which rule set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Semantics {
    /// The published rules with the patches of docs/semantics.md §4: deterministic, errors
    /// explicit.
    #[default]
    Revised,
    /// The rules of k-nn.md exactly, quirks included (krun's behaviour).
    Published,
}

impl Semantics {
    pub fn profile(self) -> &'static Profile {
        match self {
            Semantics::Revised => Profile::revised(),
            Semantics::Published => Profile::published(),
        }
    }
}

/// How to run a program. The default runs the revised rules on the big-step engine and keeps
/// nothing but the answer.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// `None`: big-step under the revised semantics unless an option needs the rewriting
    /// engine (`max_steps`, `trace`, `config`), small-step under the published semantics.
    pub engine: Option<EngineKind>,
    /// Stop after this many rewrite steps (small-step).
    pub max_steps: Option<u64>,
    /// Keep every rule applied, in order (small-step).
    pub trace: bool,
    /// Keep the final configuration (small-step).
    pub config: bool,
    /// The rule counts are wanted (small-step; its reports always carry them).
    pub coverage: bool,
    /// Read the final `<env>`'s tensors into the report (either engine).
    pub observables: bool,
    /// Let the tensor kernels fuse multiply-adds (big-step; results may differ in the last
    /// bits).
    pub fast_math: bool,
}

impl RunOptions {
    /// The engine these options run `semantics` on.
    pub fn engine_for(&self, semantics: Semantics) -> EngineKind {
        let needs_small_step = semantics == Semantics::Published || self.needs_rewriting();
        self.engine.unwrap_or(if needs_small_step { EngineKind::SmallStep } else { EngineKind::BigStep })
    }

    /// Whether an option only the rewriting engine honours is set.
    fn needs_rewriting(&self) -> bool {
        self.trace || self.coverage || self.config || self.max_steps.is_some()
    }

    /// Refuses options the engine they choose cannot honour, before anything is read: the
    /// published rules, a configuration, a trace, rule counts or a step bound on the big-step
    /// engine; fused multiply-adds on the small-step one.
    ///
    /// ```
    /// use knn::{EngineKind, RunOptions, Semantics};
    /// let traced = RunOptions { engine: Some(EngineKind::BigStep), trace: true, ..RunOptions::default() };
    /// let error = traced.check(Semantics::Revised).unwrap_err();
    /// assert_eq!(error.message, "--trace, --coverage and --max-steps needs the small-step engine (--engine small-step)");
    /// ```
    pub fn check(&self, semantics: Semantics) -> Result<(), KnnError> {
        let refuse =
            |what: &str| Err(KnnError::usage(format!("{what} needs the small-step engine (--engine small-step)")));
        match self.engine_for(semantics) {
            EngineKind::BigStep if semantics != Semantics::Revised => refuse("--semantics published"),
            EngineKind::BigStep if self.config => refuse("--output config"),
            EngineKind::BigStep if self.needs_rewriting() => refuse("--trace, --coverage and --max-steps"),
            EngineKind::SmallStep if self.fast_math => {
                Err(KnnError::usage("--fast-math applies to the big-step engine (--engine big-step)"))
            }
            _ => Ok(()),
        }
    }
}

/// What [`Program::search`] found.
#[derive(Clone, Debug)]
pub struct Searched {
    /// The distinct final states, in the order breadth-first search met them.
    pub finals: Vec<Report>,
    /// Distinct configurations explored.
    pub states: usize,
    /// Set when a bound stopped the search before it was complete.
    pub limit: Option<Limit>,
}

/// A parsed program: its source, its syntax tree and the semantics it is read under.
#[derive(Clone, Debug)]
pub struct Program {
    source: Arc<Source>,
    syntax: Exp,
    semantics: Semantics,
    /// The input the file names (an imported network's), with its shape.
    input: Option<(String, Vec<usize>)>,
}

/// Loads `path` under the revised rules: a `.knn` program (`-` reads standard input), or a
/// `.nnet`/`.onnx` network imported as the program `knn import` writes.
///
/// ```
/// let net = knn::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn")).unwrap();
/// let x = knn::parse_input("x=[1.0, -2.0, 0.5]").unwrap();
/// let report = net.run(&[x], &Default::default()).unwrap();
/// assert_eq!(report.exit_code(), 0);
/// ```
pub fn load(path: impl AsRef<Path>) -> Result<Program, KnnError> {
    load_with(path.as_ref(), Semantics::Revised, &ImportOptions::default())
}

/// [`load`] under `semantics`, importing networks with `import`.
pub fn load_with(path: &Path, semantics: Semantics, import: &ImportOptions) -> Result<Program, KnnError> {
    if knn_formats::import::Format::of_path(path).is_some() {
        if semantics == Semantics::Published {
            // The imported program is a revised one (tensor literals, Ext-2; a let-Func as the
            // body of a let-Exp): K's grammar cannot read it.
            return Err(KnnError::new(
                Failure::Usage,
                format!(
                    "{}: a network runs under the revised semantics only (its program uses tensor literals, which K's grammar lacks); drop --semantics published",
                    path.display()
                ),
            ));
        }
        let imported = import_model(path, None, import)?;
        let program = imported.program(format!("{} (imported)", path.display()), semantics)?;
        return Ok(program);
    }
    Program::parse(read_source(path)?, semantics)
}

/// Parses `text` (named `name` in messages) under `semantics`.
///
/// ```
/// use knn::{Answer, Semantics, load_source};
/// let program = load_source("two.knn", "1 + 1", Semantics::Revised).unwrap();
/// let report = program.run(&[], &Default::default()).unwrap();
/// assert!(matches!(report.answer, Answer::Value { .. }));
/// let error = load_source("bad.knn", "let in", Semantics::Revised).unwrap_err();
/// assert_eq!((error.exit_code(), error.place.as_ref().map(|p| p.line)), (2, Some(1)));
/// ```
pub fn load_source(name: &str, text: &str, semantics: Semantics) -> Result<Program, KnnError> {
    Program::parse(Source { name: name.to_string(), text: text.to_string() }, semantics)
}

/// Reads a program's text (`-`: standard input).
pub fn read_source(path: &Path) -> Result<Source, KnnError> {
    let stdin = path.as_os_str() == "-";
    let name = if stdin { "<stdin>".to_string() } else { path.display().to_string() };
    let text = if stdin {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map(|_| text)
    } else {
        std::fs::read_to_string(path)
    };
    text.map(|text| Source { name: name.clone(), text })
        .map_err(|e| KnnError::new(Failure::Io, format!("cannot read {name}: {e}")))
}

impl Program {
    /// Parses `source` with the grammar of `semantics`.
    pub fn parse(source: Source, semantics: Semantics) -> Result<Program, KnnError> {
        Program::parse_with_elements(source, semantics, Vec::new())
    }

    /// [`Program::parse`] of a text whose tensor literals are written `[…]`, their elements
    /// given in order (`knn_semantics::syntax::parse_program_with_elements`).
    pub fn parse_with_elements(
        source: Source,
        semantics: Semantics,
        elements: Vec<Elements>,
    ) -> Result<Program, KnnError> {
        let source = Arc::new(source);
        let syntax = parse_program_with_elements(&source.text, semantics.profile().grammar, elements).map_err(|e| {
            let label = match e.expected_text() {
                text if !text.is_empty() => text,
                _ => "here".to_string(),
            };
            let diagnostic = Diagnostic { span: e.span, message: e.message.clone(), label, hint: e.hint.clone() };
            KnnError::located(Failure::Parse, &source, vec![diagnostic], 1)
        })?;
        Ok(Program { source, syntax, semantics, input: None })
    }

    /// Runs the static checks of the semantics (the revised rules have them) with `bound` the
    /// names the inputs bind.
    pub fn check(&self, bound: &[&str]) -> Result<(), KnnError> {
        if !self.semantics.profile().static_checks {
            return Ok(());
        }
        let errors = check_program(&self.syntax, bound);
        if errors.is_empty() {
            return Ok(());
        }
        let diagnostics = errors
            .iter()
            .take(MAX_DIAGNOSTICS)
            .map(|e| Diagnostic {
                span: e.span,
                message: format!("{} [{}]", e.message, e.kind),
                label: e.kind.k_message().to_string(),
                hint: e.hint.clone(),
            })
            .collect();
        Err(KnnError::located(Failure::Static, &self.source, diagnostics, errors.len()))
    }

    /// Checks the program with `inputs` bound, runs it, and reports.
    pub fn run(&self, inputs: &[TensorInput], options: &RunOptions) -> Result<Report, KnnError> {
        let bound: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
        self.check(&bound)?;
        let input_error = |e: InputError| KnnError::usage(e.to_string());
        options.check(self.semantics)?;
        match options.engine_for(self.semantics) {
            EngineKind::BigStep => {
                // Staged, as `batch` runs: the program compiles with its inputs symbolic, so a
                // layer is one product over the weights, not a multiply-add the evaluator
                // interprets per weight (14 M weights: 11 ms against 2.6 s).
                let engine = BigStep { staging: Staging::Staged, precision: Precision::fast_if(options.fast_math) };
                let evaluation = engine.observe(&self.syntax, inputs).map_err(input_error)?;
                Ok(Report::of_evaluation(evaluation, options.observables, &self.source))
            }
            EngineKind::SmallStep => {
                let profile = self.semantics.profile();
                let config = self.bind(inputs)?;
                let run =
                    run_small_step(profile, config, StepOptions { max_steps: options.max_steps, trace: options.trace });
                let wanted = Wanted { observables: options.observables, trace: options.trace, config: options.config };
                Report::of_run(run, wanted, &self.source)
            }
        }
    }

    /// Every distinct final state the rules can reach (krun's `--search`), breadth first, up to
    /// `options.max_states` configurations; each a report with its observables when
    /// `observables`, its configuration when `config`.
    pub fn search(
        &self,
        inputs: &[TensorInput],
        options: SearchOptions,
        observables: bool,
        config: bool,
    ) -> Result<Searched, KnnError> {
        let bound: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
        self.check(&bound)?;
        let result = search(self.semantics.profile(), self.bind(inputs)?, options);
        let wanted = Wanted { observables, trace: false, config };
        let finals = result
            .finals
            .into_iter()
            .map(|f| Report::of_end(f.outcome, f.config, f.depth, None, None, wanted, &self.source))
            .collect::<Result<Vec<Report>, KnnError>>()?;
        Ok(Searched { finals, states: result.states, limit: result.limit })
    }

    /// The initial configuration with `inputs` bound (small-step).
    fn bind(&self, inputs: &[TensorInput]) -> Result<Config, KnnError> {
        initial_config(self.semantics.profile(), term_of_program(&self.syntax), inputs)
            .map_err(|e| KnnError::usage(e.to_string()))
    }

    pub(crate) fn shared_source(&self) -> Arc<Source> {
        self.source.clone()
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The syntax tree.
    pub fn syntax(&self) -> &Exp {
        &self.syntax
    }

    pub fn semantics(&self) -> Semantics {
        self.semantics
    }

    /// The name and length of the input, when the file says it (an imported network).
    pub fn declared_input(&self) -> Option<(&str, usize)> {
        self.input.as_ref().map(|(name, shape)| (name.as_str(), shape.iter().product()))
    }

    /// The shape of the input, when the file says it (an imported network's).
    pub fn declared_shape(&self) -> Option<&[usize]> {
        self.input.as_ref().map(|(_, shape)| shape.as_slice())
    }
}

/// The program an imported network is (here rather than in import.rs, which the loader uses).
impl Imported {
    /// The program the network is, built in memory: the weights go from the model to the
    /// literals as data (shared, not copied), and the text with each literal written `[…]`
    /// (named `name` in messages) is what errors point into. Parsed under `semantics`; its
    /// input is the network's.
    pub fn program(&self, name: String, semantics: Semantics) -> Result<Program, KnnError> {
        let (text, elements) = skeleton(self.network.clone());
        let mut program = Program::parse_with_elements(Source { name, text }, semantics, elements)?;
        program.input = Some((self.network.input.clone(), self.network.input_shape.clone()));
        Ok(program)
    }
}
