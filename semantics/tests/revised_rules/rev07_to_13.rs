//! The rules of Rev-7 … Rev-13 and the revised `[owise]` errors, one test each.

use super::*;

// ---------------------------------------------------------------------------------------------
// Rev-7: every tensor-producing let records its shape, by update (with Rev-12's scopes)
// ---------------------------------------------------------------------------------------------

/// `rev-let-init-tensor`:
/// `rule <k> let X:Id = initTensor(Is:Ints) in E:Exp => defineTensor(X, Is) ~> E ~> restoreScope(Env, SH) ...</k>
///  <env> Env </env> <shape> SH => SH[X <- Is] </shape>`
///
/// §3(i), `initTensor` shadowing: the outer `let` in empty cells, then the inner one, whose
/// shape entry replaces the outer one (an update, not a concatenation).
#[test]
fn rule_rev_let_init_tensor() {
    let source = "let t = initTensor(2) in let t = initTensor(3) in t[0]";
    fire(source, "rev-let-init-tensor")
        .k(
            &["let t = initTensor ( 2 ) in let t = initTensor ( 3 ) in t [ 0 ]"],
            &["defineTensor ( t , 2 )", "let t = initTensor ( 3 ) in t [ 0 ]", "restoreScope ( .Map , .Map )"],
        )
        .cells(&[shape(&[], &["t |-> 2"])]);
    fire_nth(source, "rev-let-init-tensor", 2)
        .k(
            &["let t = initTensor ( 3 ) in t [ 0 ]"],
            &["defineTensor ( t , 3 )", "t [ 0 ]", "restoreScope ( t |-> 0 , t |-> 2 )"],
        )
        .cells(&[shape(&["t |-> 2"], &["t |-> 3"])]);
}

/// `rev-let-relu-tensor`:
/// `rule <k> let X:Id = reluTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> reluTensorHelper(Y, X, {SH[Y]}:>Ints)
///  ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape>
///  requires Y in_keys(SH) andBool X =/=K Y`
#[test]
fn rule_rev_let_relu_tensor() {
    fire(RELU_1D, "rev-let-relu-tensor")
        .k(
            &["let u = reluTensor ( t ) in u [ 1 ]"],
            &[
                "defineTensor ( u , 3 )",
                "reluTensorHelper ( t , u , 3 )",
                "u [ 1 ]",
                "restoreScope ( t |-> 0 , t |-> 3 )",
            ],
        )
        .cells(&[shape(&[], &["u |-> 3"])]);
}

/// `rev-let-tanh-tensor`:
/// `rule <k> let X:Id = tanhTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> tanhTensorHelper(Y, X, {SH[Y]}:>Ints)
///  ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape>
///  requires Y in_keys(SH) andBool X =/=K Y`
#[test]
fn rule_rev_let_tanh_tensor() {
    fire(TANH_1D, "rev-let-tanh-tensor")
        .k(
            &["let h = tanhTensor ( v ) in h [ 0 ]"],
            &[
                "defineTensor ( h , 1 )",
                "tanhTensorHelper ( v , h , 1 )",
                "h [ 0 ]",
                "restoreScope ( v |-> 0 , v |-> 1 )",
            ],
        )
        .cells(&[shape(&[], &["h |-> 1"])]);
}

/// `rev-let-sigmoid-tensor`:
/// `rule <k> let X:Id = sigmoidTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> sigmoidTensorHelper(Y, X, {SH[Y]}:>Ints)
///  ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape>
///  requires Y in_keys(SH) andBool X =/=K Y`
#[test]
fn rule_rev_let_sigmoid_tensor() {
    fire(SIGMOID_2D, "rev-let-sigmoid-tensor")
        .k(
            &["let s = sigmoidTensor ( m ) in s [ 0 , 1 ]"],
            &[
                "defineTensor ( s , 1 , 2 )",
                "sigmoidTensorHelper ( m , s , 1 , 2 )",
                "s [ 0 , 1 ]",
                "restoreScope ( m |-> 0 , m |-> 1 , 2 )",
            ],
        )
        .cells(&[shape(&[], &["s |-> 1 , 2"])]);
}

/// `rev-let-func-error`:
/// `rule <k> let X = F:Func in _ => knnError(letFuncError(X, F)) ...</k> [owise]`, where
/// `letFuncError` is `"output aliases input"` when an operand is the output.
///
/// §3(i), "reluTensor in place": `let t = reluTensor(t)` fails the guard `X =/=K Y` of
/// `rev-let-relu-tensor`.
#[test]
fn rule_rev_let_func_error() {
    fire("let t = initTensor(2) in let t[0] = 5.0 in (let t = reluTensor(t) in t[0])", "rev-let-func-error")
        .k(
            &["let t = reluTensor ( t ) in t [ 0 ]"],
            // `letFuncError(t, reluTensor(t))`: the operand is the output.
            &["knnError ( \"output aliases input\" )"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-8: linear checks W: (I, J) against X: (J) and records Y: (I)
// ---------------------------------------------------------------------------------------------

/// `rev-let-linear`:
/// `rule <k> let Y:Id = linear(W, X) in E => linearChecked(Y, W, X, {SH[W]}:>Ints, {SH[X]}:>Ints, E) ...</k>
///  <shape> SH </shape> requires W in_keys(SH) andBool X in_keys(SH)`
#[test]
fn rule_rev_let_linear() {
    fire(LINEAR, "rev-let-linear")
        .k(&["let y = linear ( W , x ) in y [ 0 ]"], &["linearChecked ( y , W , x , 1 , 2 , 2 , y [ 0 ] )"])
        .cells(&[]);
}

/// `rev-linear-checked`:
/// `rule <k> linearChecked(Y, W, X, (I:Int, J:Int), J, E) => defineTensor(Y, I) ~> linearHelper(Y, I, J, W, X)
///  ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- I] </shape>
///  requires Y =/=K W andBool Y =/=K X`
#[test]
fn rule_rev_linear_checked() {
    fire(LINEAR, "rev-linear-checked")
        .k(
            &["linearChecked ( y , W , x , 1 , 2 , 2 , y [ 0 ] )"],
            &[
                "defineTensor ( y , 1 )",
                "linearHelper ( y , 1 , 2 , W , x )",
                "y [ 0 ]",
                "restoreScope ( W |-> 3 x |-> 0 , W |-> 1 , 2 x |-> 2 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 1"])]);
}

/// `rev-linear-shape-mismatch`:
/// `rule <k> linearChecked(_, _, _, _, _, _) => knnError("shape mismatch") ...</k> [owise]`
/// (§4 writes `"linear: shape mismatch"`; the K string names the kind since Ext-1 raises it too)
///
/// §3(h), `x` shorter than `W`'s rows: `W: (1, 2)`, `x: (1)`.
#[test]
fn rule_rev_linear_shape_mismatch() {
    let source = "let x = initTensor(1) in let W = initTensor(1, 2) in let y = linear(W, x) in y[0]";
    fire(source, "rev-linear-shape-mismatch")
        .k(&["linearChecked ( y , W , x , 1 , 2 , 1 , y [ 0 ] )"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-9: scalar relu, tanh and sigmoid
// ---------------------------------------------------------------------------------------------

/// `rev-let-relu`: `rule let X:Id = relu(E:Exp) in B:Exp => let X = max(E, 0.0) in B`
#[test]
fn rule_rev_let_relu() {
    fire("let x = relu(3.0) in x", "rev-let-relu")
        .k(
            &["let x = relu ( 0.30000000000000000e1 ) in x"],
            &["let x = max ( 0.30000000000000000e1 , 0.00000000000000000e0 ) in x"],
        )
        .cells(&[]);
}

/// `rev-let-tanh`: `rule let X:Id = tanh(E:Exp) in B:Exp => let X = tanhItem(E) in B`
#[test]
fn rule_rev_let_tanh() {
    fire("let x = tanh(0.5) in x", "rev-let-tanh")
        .k(&["let x = tanh ( 0.50000000000000000e0 ) in x"], &["let x = tanhItem ( 0.50000000000000000e0 ) in x"])
        .cells(&[]);
}

/// `rev-let-sigmoid`: `rule let X:Id = sigmoid(E:Exp) in B:Exp => let X = sigmoidItem(E) in B`
#[test]
fn rule_rev_let_sigmoid() {
    fire("let x = sigmoid(0.0) in x", "rev-let-sigmoid")
        .k(&["let x = sigmoid ( 0.00000000000000000e0 ) in x"], &["let x = sigmoidItem ( 0.00000000000000000e0 ) in x"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-10: Int and mixed arithmetic
// ---------------------------------------------------------------------------------------------

/// `rev-add-int`: `rule I1:Int + I2:Int => I1 +Int I2`
///
/// An `ArgMax` result in arithmetic (§3(f)): `ArgMax([0.0, 1.0]) + 1`.
#[test]
fn rule_rev_add_int() {
    fire("let s = initTensor(2) in let s[1] = 1.0 in ArgMax(s) + 1", "rev-add-int").k(&["1 + 1"], &["2"]).cells(&[]);
}

/// `rev-mul-int`: `rule I1:Int * I2:Int => I1 *Int I2`
#[test]
fn rule_rev_mul_int() {
    fire("2 * 3", "rev-mul-int").k(&["2 * 3"], &["6"]).cells(&[]);
}

/// `rev-add-int-float`: `rule I:Int + F:Float => Int2Float(I, 53, 11) +Float F`
#[test]
fn rule_rev_add_int_float() {
    fire("1 + 2.0", "rev-add-int-float").k(&["1 + 0.20000000000000000e1"], &["0.30000000000000000e1"]).cells(&[]);
}

/// `rev-add-float-int`: `rule F:Float + I:Int => F +Float Int2Float(I, 53, 11)`
#[test]
fn rule_rev_add_float_int() {
    fire("0.5 + 2", "rev-add-float-int").k(&["0.50000000000000000e0 + 2"], &["0.25000000000000000e1"]).cells(&[]);
}

/// `rev-mul-int-float`: `rule I:Int * F:Float => Int2Float(I, 53, 11) *Float F`
#[test]
fn rule_rev_mul_int_float() {
    fire("3 * 0.5", "rev-mul-int-float").k(&["3 * 0.50000000000000000e0"], &["0.15000000000000000e1"]).cells(&[]);
}

/// `rev-mul-float-int`: `rule F:Float * I:Int => F *Float Int2Float(I, 53, 11)`
#[test]
fn rule_rev_mul_float_int() {
    fire("0.25 * 4", "rev-mul-float-int").k(&["0.25000000000000000e0 * 4"], &["0.10000000000000000e1"]).cells(&[]);
}

/// `rev-arith-invalid`:
/// `rule <k> V1:Val + V2:Val => knnError("invalid operands") ...</k> [owise]` (likewise `*`,
/// `max`, `min`)
///
/// A tensor header used as a number.
#[test]
fn rule_rev_arith_invalid() {
    fire("let t = initTensor(1) in t + 1.0", "rev-arith-invalid")
        .k(&["tensor ( 1 , 1 ) + 0.10000000000000000e1"], &["knnError ( \"invalid operands\" )"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-11: determinism (seqstrict operators)
// ---------------------------------------------------------------------------------------------

/// `rev-heat-max-2`: `rule <k> max(K0:Val, HOLE) => HOLE ~> max(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]`
///
/// Both arguments start unevaluated: the right one is heated only once the left one is a value.
#[test]
fn rule_rev_heat_max_2() {
    fire("max(1.0 + 2.0, 0.5 * 2.0)", "rev-heat-max-2")
        .k(
            &["max ( 0.30000000000000000e1 , 0.50000000000000000e0 * 0.20000000000000000e1 )"],
            &["0.50000000000000000e0 * 0.20000000000000000e1", "max ( 0.30000000000000000e1 , □ )"],
        )
        .cells(&[]);
}

/// `rev-heat-min-2`: `rule <k> min(K0:Val, HOLE) => HOLE ~> min(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_rev_heat_min_2() {
    fire("min(1.0 + 2.0, 0.5 * 2.0)", "rev-heat-min-2")
        .k(
            &["min ( 0.30000000000000000e1 , 0.50000000000000000e0 * 0.20000000000000000e1 )"],
            &["0.50000000000000000e0 * 0.20000000000000000e1", "min ( 0.30000000000000000e1 , □ )"],
        )
        .cells(&[]);
}

/// `rev-heat-mul-2`: `rule <k> K0:Val * HOLE => HOLE ~> K0 * □ ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_rev_heat_mul_2() {
    fire("max(1.0, 2.0) * min(3.0, 4.0)", "rev-heat-mul-2")
        .k(
            &["0.20000000000000000e1 * min ( 0.30000000000000000e1 , 0.40000000000000000e1 )"],
            &["min ( 0.30000000000000000e1 , 0.40000000000000000e1 )", "0.20000000000000000e1 * □"],
        )
        .cells(&[]);
}

/// `rev-heat-add-2`: `rule <k> K0:Val + HOLE => HOLE ~> K0 + □ ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_rev_heat_add_2() {
    fire("max(1.0, 2.0) + min(3.0, 4.0)", "rev-heat-add-2")
        .k(
            &["0.20000000000000000e1 + min ( 0.30000000000000000e1 , 0.40000000000000000e1 )"],
            &["min ( 0.30000000000000000e1 , 0.40000000000000000e1 )", "0.20000000000000000e1 + □"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-12: lexical scoping and aliasing instead of substitution
// ---------------------------------------------------------------------------------------------

/// `rev-let-value`:
/// `rule <k> let X:Id = V:Val in E:Exp => E ~> restoreScope(Env, SH) ...</k> <env> Env => Env[X <- L] </env>
///  <shape> SH => SH[X <- undef] </shape> <store>... .Map => L |-> V ...</store>
///  <nextLoc> L:Int => L +Int 1 </nextLoc>`
///
/// The scalar `t` shadows the tensor `t`: `L = 3`, and `t`'s shape entry goes for the body.
#[test]
fn rule_rev_let_value() {
    fire(SHADOW_SCALAR, "rev-let-value")
        .k(&["let t = 0.50000000000000000e1 in t"], &["t", "restoreScope ( t |-> 0 , t |-> 2 )"])
        .cells(&[
            env(&["t |-> 0"], &["t |-> 3"]),
            store(&[], &["3 |-> 0.50000000000000000e1"]),
            next_loc(3, 4),
            shape(&["t |-> 2"], &[]),
        ]);
}

/// `rev-restore-scope`:
/// `rule <k> V:Val ~> restoreScope(Env, SH) => V ...</k> <env> _ => Env </env> <shape> _ => SH </shape>`
///
/// The body of the scalar `let t = 5.0` is done: the tensor `t` and its shape come back.
#[test]
fn rule_rev_restore_scope() {
    fire(SHADOW_SCALAR, "rev-restore-scope")
        .k(&["0.50000000000000000e1", "restoreScope ( t |-> 0 , t |-> 2 )"], &["0.50000000000000000e1"])
        .k_after(&["0.50000000000000000e1", "restoreScope ( .Map , .Map )"])
        .cells(&[env(&["t |-> 3"], &["t |-> 0"]), shape(&[], &["t |-> 2"])]);
}

// ---------------------------------------------------------------------------------------------
// Rev-13: tanh without overflow
// ---------------------------------------------------------------------------------------------

/// `rev-tanh-item-nonnegative`:
/// `rule tanhItem(X:Float) => (1.0 -Float expFloat(-2.0 *Float X)) /Float (1.0 +Float expFloat(-2.0 *Float X))
///  requires notBool (X <Float 0.0)`
///
/// §3(j): `X = 400.0`, where the published formula is NaN. `expFloat(-800.0)` underflows to
/// `0.0`, so the result is `(1.0 - 0.0) / (1.0 + 0.0) = 1.0`.
#[test]
fn rule_rev_tanh_item_nonnegative() {
    let source = "let v = initTensor(1) in let v[0] = 400.0 in (let h = tanhTensor(v) in h[0])";
    fire(source, "rev-tanh-item-nonnegative")
        .k(&["tanhItem ( 0.40000000000000000e3 )"], &["0.10000000000000000e1"])
        .cells(&[]);
}

/// `rev-tanh-item-negative`:
/// `rule tanhItem(X:Float) => (expFloat(2.0 *Float X) -Float 1.0) /Float (expFloat(2.0 *Float X) +Float 1.0)
///  requires X <Float 0.0`
///
/// With `X = -1.0`: `(e^-2 - 1) / (e^-2 + 1) = -0.7615941559557649`, printed with 17 digits.
#[test]
fn rule_rev_tanh_item_negative() {
    let f = fire(TANH_1D, "rev-tanh-item-negative")
        .k(&["tanhItem ( -0.10000000000000000e1 )"], &["-0.76159415595576485e0"]);
    let value = f.after.top_term().and_then(|t| t.as_float()).unwrap();
    // The right-hand side, operation by operation, with `X = -1.0`.
    let x: f64 = -1.0;
    let by_hand = ((2.0 * x).exp() - 1.0) / ((2.0 * x).exp() + 1.0);
    assert!((value - by_hand).abs() <= f64::EPSILON, "{value} vs {by_hand}");
    f.cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Coverage
/// `rev-let-target-error` (ours, Rev-3):
/// `rule <k> let E = V:Val in _ => knnError("invalid let target") ...</k> [owise]`
#[test]
fn rule_rev_let_target_error() {
    fire("let 1.0 = 2.0 in 3.0", "rev-let-target-error")
        .k(
            &["let 0.10000000000000000e1 = 0.20000000000000000e1 in 0.30000000000000000e1"],
            &["knnError ( \"invalid let target\" )"],
        )
        .cells(&[]);
}

/// `rev-item-invalid` (ours, Rev-13):
/// `rule <k> tanhItem(V:Val) => knnError("invalid operands") ...</k> [owise]`
#[test]
fn rule_rev_item_invalid() {
    fire("let x = tanh(1) in x", "rev-item-invalid")
        .k(&["tanhItem ( 1 )", "let x = □ in x"], &["knnError ( \"invalid operands\" )", "let x = □ in x"])
        .cells(&[]);
}

/// `rev-argmax-helper-error` (ours, Rev-6):
/// `rule <k> ArgMaxHelper(X, I...J, _, _) => knnError("ArgMax expects a non-empty vector of floats") ...</k>
///  requires I <Int J [owise]` — element 1 of `t` holds the header of `u`.
#[test]
fn rule_rev_argmax_helper_error() {
    fire("let t = initTensor(2) in let u = initTensor(1) in let t[1] = u in ArgMax(t)", "rev-argmax-helper-error")
        .k(
            &["ArgMaxHelper ( t , 1 ... 2 , 0.00000000000000000e0 , 0 )"],
            &["knnError ( \"ArgMax expects a non-empty vector of floats\" )"],
        )
        .cells(&[]);
}
