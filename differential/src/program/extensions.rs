//! Which generated programs use the extensions, which only the revised grammar reads.

use knn_semantics::syntax::{ExpKind, FuncKind};

use super::Program;

impl Program {
    /// Whether the program uses a construct of the extensions (Ext-1 `addTensor`, Ext-2 tensor
    /// literals, Ext-3 `conv2d`, Ext-4 pools, Ext-5 `reshape`, Ext-6 `transpose`, Ext-7 `-`, `/`,
    /// Ext-8 `subTensor`, …, Ext-11 `concat`, Ext-12 `slice`), which the K grammar and the published rules do not have.
    pub fn uses_extensions(&self) -> bool {
        let exp = self.exp();
        let mut stack = vec![&exp];
        while let Some(e) = stack.pop() {
            if match &e.kind {
                ExpKind::Sub(..) | ExpKind::Div(..) => true,
                ExpKind::LetFunc { func, .. } => !matches!(
                    func.kind,
                    FuncKind::InitTensor(_)
                        | FuncKind::Relu(_)
                        | FuncKind::ReluTensor(_)
                        | FuncKind::Tanh(_)
                        | FuncKind::TanhTensor(_)
                        | FuncKind::Sigmoid(_)
                        | FuncKind::SigmoidTensor(_)
                        | FuncKind::Linear(..)
                ),
                _ => false,
            } {
                return true;
            }
            stack.extend(e.children());
        }
        false
    }
}
