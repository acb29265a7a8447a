//! The lexical scopes of the big-step evaluator (Rev-12): the names in scope, `<env>` and
//! `<shape>`, as persistent maps, and the scopes a `let`'s body is evaluated in.

use std::rc::Rc;

use imbl::GenericHashMap;
use imbl::shared_ptr::DefaultSharedPtr;
use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::Span;
use rustc_hash::FxBuildHasher;

use super::ops::{Eval, error};

/// Names in scope (Rev-12): `<env>` and `<shape>`. A body is evaluated in a scope of its own,
/// so the enclosing one is what the tasks after it see: `rev-restore-scope` without a step.
#[derive(Clone, Default)]
pub(super) struct Scope {
    pub(super) env: Names<usize>,
    pub(super) shape: Names<Rc<[usize]>>,
}

/// A persistent map from the names in scope. Every identifier the program reads is looked up
/// here (ten thousand times in compiling ACAS Xu), so the hash is FxHash: SipHash was a sixth of
/// the compile, and its resistance to flooding buys nothing against names from the program
/// itself. Nothing iterates it in hash order (`<env>` is read sorted by name).
pub(super) type Names<V> = GenericHashMap<Rc<str>, V, FxBuildHasher, DefaultSharedPtr>;

impl Scope {
    /// Where `x` is bound; unbound, `rev-unbound-identifier`.
    #[inline]
    pub(super) fn lookup(&self, x: &str, span: Span) -> Eval<usize> {
        self.env
            .get(x)
            .copied()
            .ok_or_else(|| error(ErrorKind::UnboundIdentifier, span, format!("`{x}` is not bound here")))
    }

    /// The scope of a `let`'s body when `name` is bound to the fresh cell `loc`
    /// (`rev-let-value`): the name's shape entry is dropped.
    pub(super) fn with_value(&self, name: &str, loc: usize) -> Rc<Scope> {
        let name: Rc<str> = Rc::from(name);
        let mut inner = self.clone();
        inner.shape.remove(&name);
        inner.env.insert(name, loc);
        Rc::new(inner)
    }

    /// The scope of a binding's body: the name bound to a tensor header (`bindTo`,
    /// `rev-bind-to`, after `rev-define-tensor` allocated it), its shape recorded (Rev-7).
    pub(super) fn with_tensor(&self, name: &str, root: usize, dims: &[usize]) -> Rc<Scope> {
        let name: Rc<str> = Rc::from(name);
        let mut inner = self.clone();
        inner.env.insert(name.clone(), root);
        inner.shape.insert(name, Rc::from(dims));
        Rc::new(inner)
    }
}
