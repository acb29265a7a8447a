//! One element's fused write: the element-wise steps of a run, in order, on one element.

use super::*;

/// The expression for element `i` (at `index`) after `steps`, or `None` when the steps leave
/// it unchanged.
pub(super) fn element(
    tensor: &str,
    index: &str,
    i: usize,
    steps: &[&Step],
    mut not_negative_zero: bool,
) -> Option<String> {
    let mut expression = format!("{tensor}[{index}]");
    let mut is_sum = false;
    let mut changed = false;
    for step in steps {
        match step {
            Step::Add(c) => {
                let c = c[i];
                let identity = c.to_bits() == (-0f64).to_bits() || (c.to_bits() == 0 && not_negative_zero);
                if !identity {
                    expression = format!("{expression} + {}", float_literal(c));
                    is_sum = true;
                    changed = true;
                }
                // x + c is -0.0 only when x and c both are.
                not_negative_zero = not_negative_zero || c.to_bits() != (-0f64).to_bits();
            }
            Step::Mul(c) => {
                let c = c[i];
                if c != 1.0 {
                    let factor = if is_sum { format!("({expression})") } else { expression };
                    expression = format!("{factor} * {}", float_literal(c));
                    is_sum = false;
                    changed = true;
                    not_negative_zero = false;
                }
            }
            Step::Div(c) => {
                // x / 1.0 is x, bit for bit (NaN, -0.0 and infinities included).
                let c = c[i];
                if c != 1.0 {
                    let dividend = if is_sum { format!("({expression})") } else { expression };
                    expression = format!("{dividend} / {}", float_literal(c));
                    is_sum = false;
                    changed = true;
                    not_negative_zero = false;
                }
            }
            Step::Clip { low, high } => {
                expression = format!("max(min({expression}, {}), {})", float_literal(high[i]), float_literal(low[i]));
                is_sum = false;
                changed = true;
                not_negative_zero = false;
            }
            Step::Linear { .. }
            | Step::Activation(_)
            | Step::Conv(_)
            | Step::Pool(_)
            | Step::Reshape(_)
            | Step::Transpose { .. }
            | Step::Keep(_)
            | Step::Resume(_)
            | Step::AddKept { .. }
            | Step::ConcatKept { .. }
            | Step::MatmulKept { .. }
            | Step::ArithKept { .. }
            | Step::Literal { .. }
            | Step::Softmax { .. }
            | Step::Reduce { .. }
            | Step::Slice { .. }
            | Step::Pad { .. } => {
                unreachable!("only element-wise steps are fused")
            }
        }
    }
    changed.then_some(expression)
}
