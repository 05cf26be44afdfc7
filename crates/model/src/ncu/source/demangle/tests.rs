//! The demangler on hand-written manglings, one grammar feature each, with the names NVIDIA's
//! style gives them (the corpus-wide comparison is `crates/model/tests/it/ncu_demangle.rs`).

use super::{MAX_OUTPUT, demangle, demangle_or_raw};

fn check(mangled: &str, expected: &str) {
    assert_eq!(demangle(mangled).as_deref(), Some(expected), "{mangled}");
}

#[test]
fn demangle_plain_functions_and_builtin_types() {
    check("_Z1fv", "f()");
    check("_Z1fi", "f(int)");
    check(
        "_Z7vec_addPfS_S_i",
        "vec_add(float *, float *, float *, int)",
    );
    check(
        "_Z1fabchstjlmxynofdegwz",
        "f(signed char, bool, char, unsigned char, short, unsigned short, unsigned int, long, \
         unsigned long, long long, unsigned long long, __int128, unsigned __int128, float, \
         double, long double, __float128, wchar_t, ...)",
    );
    check(
        "_Z1fDnDsDiDu",
        "f(std::nullptr_t, char16_t, char32_t, char8_t)",
    );
    check("_Z1fDF16_", "f(_Float16)");
}

#[test]
fn demangle_qualifiers_pointers_and_references() {
    check("_Z1fPKd", "f(const double *)");
    check("_Z1fPVj", "f(volatile unsigned int *)");
    check("_Z1fPVKi", "f(const volatile int *)");
    check("_Z1fPKPc", "f(char *const *)");
    check("_Z1fKPc", "f(char *const)");
    check("_Z1fRf", "f(float &)");
    check("_Z1fOi", "f(int &&)");
    check("_Z1fRKi", "f(const int &)");
    check("_Z1fPPi", "f(int **)");
    check("_Z1fPrPf", "f(float *__restrict__ *)");
    check("_Z1fPrf", "f(__restrict__ float *)");
}

#[test]
fn demangle_substitutions() {
    // S_ is the first candidate, S0_ the second (P and K make candidates, builtins do not).
    check(
        "_Z1fPKdS0_mPd",
        "f(const double *, const double *, unsigned long, double *)",
    );
    check("_Z1fPKdS_", "f(const double *, const double)");
    // The prefix `a` is S_, the type `a::b` S0_ (the whole nested name is a candidate as a
    // type, not as a name), `c` S1_.
    check("_Z1fN1a1bE1cS0_S_S1_", "f(a::b, c, a::b, a, c)");
    check("_Z1fSaIcE", "f(std::allocator<char>)");
    check("_Z1fSs", "f(std::string)");
    check("_Z1fNSt6vectorIiEE", "f(std::vector<int>)");
    check(
        "_Z1fSt6vectorIiES0_",
        "f(std::vector<int>, std::vector<int>)",
    );
    // A template-template substitution followed by arguments.
    check("_Z1f1AIiES_IcE", "f(A<int>, A<char>)");
}

#[test]
fn demangle_nested_names_and_special_members() {
    check("_ZN1a1b1fEv", "a::b::f()");
    check("_ZNK1a1fEv", "a::f() const");
    check("_ZNR1a1fEv", "a::f() &");
    check(
        "_ZN4dim3C1Ejjj",
        "dim3::dim3(unsigned int, unsigned int, unsigned int)",
    );
    check(
        "_ZN4dim3C2Ejjj",
        "dim3::dim3(unsigned int, unsigned int, unsigned int) [subobject]",
    );
    check("_ZN1AD1Ev", "A::~A()");
    check("_ZN1AD2Ev", "A::~A() [subobject]");
    check("_ZN1AD0Ev", "A::~A() [deleting]");
    check(
        "_ZN18cooperative_groups4__v117thread_group_baseILj4EEC2Ev",
        "cooperative_groups::__v1::thread_group_base<(unsigned int)4>::thread_group_base() \
         [subobject]",
    );
    check(
        "_ZNSaIcEC2Ev",
        "std::allocator<char>::allocator() [subobject]",
    );
}

#[test]
fn demangle_operators() {
    check("_ZnwyPv", "operator new(unsigned long long, void *)");
    check("_ZN1AclEv", "A::operator ()()");
    check("_ZN1AplERKS_", "A::operator +(const A &)");
    check("_ZN1AixEi", "A::operator [](int)");
    check("_ZN1AcviEv", "A::operator int()");
    check("_ZN1AaSEOS_", "A::operator =(A &&)");
}

#[test]
fn demangle_templates() {
    check(
        "_Z12computeValueIfEvPjP17curandStateXORWOWj",
        "void computeValue<float>(unsigned int *, curandStateXORWOW *, unsigned int)",
    );
    check(
        "_Z1fILi4ELb0ELm8ELin2EEvv",
        "void f<(int)4, (bool)0, (unsigned long)8, (int)-2>()",
    );
    check("_Z1fI1AI1BIiEEEvv", "void f<A<B<int>>>()");
    // Template parameters of the signature print by position.
    check("_Z1fIiEvT_", "void f<int>(T1)");
    // The unscoped template name `f` is S_, then T_ is S0_.
    check("_Z1fIicEvT_T0_S0_S1_", "void f<int, char>(T1, T2, T1, T2)");
    check("_Z1fIiET_S0_", "T1 f<int>(T1)");
    check("_ZN1A1fIiEEvRKT_", "void A::f<int>(const T1 &)");
    // Packs: expanded arguments, and a pack expansion parameter.
    check("_Z1fIJicEEvDpT_", "void f<int, char>(T1...)");
    check("_Z1fIJEEvv", "void f<>()");
    check("_Z1fIXadL_Z1gvEEEvv", "void f<&g()>()");
    check("_Z1fILDnEEvv", "void f<nullptr>()");
    check("_Z1fISt7forwardIiEEvv", "void f<std::forward<int>>()");
}

#[test]
fn demangle_function_pointers_arrays_members() {
    check("_Z1fPFviE", "f(void (*)(int))");
    check("_Z1fPFPFivEcE", "f(int (*(*)(char))())");
    check("_Z1fRA10_i", "f(int (&)[10])");
    check("_Z1fPA3_A4_f", "f(float (*)[3][4])");
    check("_Z1fA_i", "f(int [])");
    check("_Z1fM1Ai", "f(int A::*)");
    check("_Z1fM1AKFviE", "f(void (A::*)(int) const)");
    check("_Z1fPKFvvE", "f(void (*)() const)");
    check("_Z1fPFvRKiE", "f(void (*)(const int &))");
}

#[test]
fn demangle_local_names_lambdas_unnamed() {
    check("_ZZ1fvE1g", "f()::g");
    check("_ZZ1fvEN1A1gEv", "f()::A::g()");
    check(
        "_Z1fIZ1gvEUlvE_EvT_",
        "void f<g()::[lambda() (instance 1)]>(T1)",
    );
    check(
        "_Z1fIZ1gvEUlifE0_EvT_",
        "void f<g()::[lambda(int, float) (instance 2)]>(T1)",
    );
    check(
        "_ZZ1fvENKUlvE1_clEv",
        "f()::[lambda() (instance 3)]::operator ()() const",
    );
    check("_ZN12_GLOBAL__N_11fEv", "<unnamed>::f()");
    check(
        "_ZN2at54_GLOBAL__N__d8ceb000_21_DistributionNormal_cu_0c5b6e851fEv",
        "at::<unnamed>::f()",
    );
    check("_ZN1AUt_1fEv", "A::[unnamed type (instance 1)]::f()");
    check("_ZZ1fvE1g_0", "f()::g");
    // nvcc's namespace of a file's internal-linkage functions is left out.
    check(
        "_ZN80_INTERNAL_58_tmpxft_00005750_00000000_17_piestimator_compute_86_cpp1_ii_c3a99b3f14__barrier_syncEj",
        "__barrier_sync(unsigned int)",
    );
    check("_ZN1A1fB5cxx11Ev", "A::f[abi:cxx11]()");
}

#[test]
fn demangle_falls_back_on_what_it_does_not_read() {
    for raw in [
        "VecAdd_kernel",
        "vprintf",
        "_Z",
        "_Z1",
        "_Z3fo",
        "_Z1fS_",
        "_Z1fT",
        "_ZTV1A",
        "_Z1fv.part.0",
        "_Z1fIiEv",
        "_Z1fDtfp_E",
        "_Z99999999999999999999999f",
        "$_Z1fv$gpu_report_exception",
        "_Z1fi\u{e9}",
    ] {
        assert_eq!(demangle_or_raw(raw), raw, "{raw}");
    }
}

#[test]
fn demangle_limits_depth_and_output() {
    // Nesting beyond the limits falls back instead of exhausting the stack.
    let deep = format!("_Z1f{}i", "P".repeat(100_000));
    assert_eq!(demangle(&deep), None);
    let deep_args = format!("_Z1f{}i{}", "1AI".repeat(5_000), "E".repeat(5_000));
    assert_eq!(demangle(&deep_args), None);
    // Each substitution doubling the text: the output limit stops it.
    let mut doubling = String::from("_Z1f1AIiE");
    for i in 0..40 {
        let sub = if i == 0 {
            "S_".to_owned()
        } else {
            format!("S{}_", i - 1)
        };
        doubling.push_str(&format!("1BI{sub}{sub}E"));
    }
    assert!(demangle(&doubling).is_none_or(|d| d.len() <= MAX_OUTPUT));
    // A function type naming a long substitution 100,000 times: refused before printing it.
    let long = format!("1000{}", "a".repeat(1000));
    let many = format!("_Z1f{long}PFv{}E", "S_".repeat(100_000));
    let start = std::time::Instant::now();
    assert_eq!(demangle(&many), None);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    // Expressions nest within the recursion limit too.
    let nested = format!("_Z1fIX{}T_EEvv", "ad".repeat(100_000));
    assert_eq!(demangle(&nested), None);
}

fn check_gnu(mangled: &str, expected: &str) {
    assert_eq!(
        super::demangle_in(mangled, super::Style::Gnu).as_deref(),
        Some(expected),
        "{mangled}"
    );
}

/// The GNU style of reports written before 2021.2 (the corpus's 2020.x, 2021.1 and
/// version-less reports store these names).
#[test]
fn demangle_in_gnu_style() {
    check_gnu(
        "_Z6jacobiPKfPfS1_i",
        "jacobi(float const*, float*, float*, int)",
    );
    check_gnu(
        "_ZN7rtracer12build_meshesEPNS_10MeshConfigE",
        "rtracer::build_meshes(rtracer::MeshConfig*)",
    );
    check_gnu(
        "_Z12computeValueIfEvPjP17curandStateXORWOWj",
        "void computeValue<float>(unsigned int*, curandStateXORWOW*, unsigned int)",
    );
    check_gnu("_Z1fPKPc", "f(char* const*)");
    check_gnu("_Z1fRKi", "f(int const&)");
    check_gnu("_Z1fPFviE", "f(void (*)(int))");
    check_gnu("_Z1fPA4_i", "f(int (*) [4])");
    check_gnu("_Z1fILj4ELb1ELi2EEvv", "void f<4u, true, 2>()");
    check_gnu("_Z1fIN1aIiEEEvv", "void f<a<int> >()");
    // A function template's parameters print as its arguments.
    check_gnu("_Z1fIiEvT_", "void f<int>(int)");
    check_gnu("_ZN12_GLOBAL__N_11fEv", "(anonymous namespace)::f()");
    check_gnu("_ZN1AC2Ev", "A::A()");
    check_gnu("_ZN1AclEv", "A::operator()()");
}

#[test]
fn style_of_a_report_by_its_version() {
    use super::Style;
    use crate::ncu::ToolVersion;
    let v = |year, minor| Some(ToolVersion { year, minor });
    assert_eq!(Style::stored_by(None), Style::Gnu);
    assert_eq!(Style::stored_by(v(2020, 3)), Style::Gnu);
    assert_eq!(Style::stored_by(v(2021, 1)), Style::Gnu);
    assert_eq!(Style::stored_by(v(2021, 2)), Style::Nvidia);
    assert_eq!(Style::stored_by(v(2024, 1)), Style::Nvidia);
}

/// Expressions with binary operators in template arguments (a `pow` overload of libcu++).
#[test]
fn demangle_binary_operator_expressions() {
    check(
        "_Z3powIfiLi0EENSt11conditionalIXooL_ZSt9is_same_vEL_ZSt9is_same_vEEeNS0_IXaaL_ZSt9is_same_vEL_ZSt9is_same_vEEfdE4typeEE4typeET_T0_",
        "std::conditional<(std::is_same_v || std::is_same_v), long double, \
         std::conditional<(std::is_same_v && std::is_same_v), float, double>::type>::type \
         pow<float, int, (int)0>(T1, T2)",
    );
}
