/// What a configured model may do in an ask, earned by measurement on the user's own library (see `Qualification`).
public enum ModelRole: String, Hashable, Sendable, Codable, CaseIterable {
    /// Its "none fits" vetoes a deterministic pick, and its audited picks stand.
    case trusted
    /// It adds search words, and its pick stands only where the deterministic picker abstains (the role until measured).
    case advisory
    /// It is not called.
    case ignored
}

/// The `model.role` setting and `--model-role` flag: `auto` (the measured role) or a role forced by the user.
public enum ModelRoleSetting: String, Hashable, Sendable, Codable, CaseIterable {
    case auto
    case trusted
    case advisory
    case ignored

    /// The role this setting forces, or nil for `auto`.
    public var forcedRole: ModelRole? { ModelRole(rawValue: rawValue) }
}

/// Where a configured model stands: its role and the figures it came from, shown by `doctor`, `ask --json` and
/// every ask result.
public struct ModelStanding: Hashable, Sendable {
    /// How the role was reached.
    public enum Basis: String, Hashable, Sendable, Codable, CaseIterable {
        /// Forced by `model.role` or `--model-role`.
        case forced
        /// Measured on this library revision (now or from the cache).
        case measured
        /// The measurement is running; until it ends the role is `advisory`.
        case measuring
        /// Not measured (it could not be, or not yet); the role is `advisory`.
        case unmeasured
        /// Measured trusted, then it disagreed with too many later checks (`TrustChecks`): `advisory` until it is
        /// measured again.
        case demoted
        /// Measured trusted, with its regular check due and not yet answered (asks came faster than a probe could
        /// be sent between them): `advisory` until it is.
        case checking
    }

    public var role: ModelRole
    public var basis: Basis
    /// The measurement's figures, when there is one (also when the role is forced).
    public var qualification: QualificationCounts?
    /// The checks that ended its trust (basis `demoted`).
    public var checks: TrustChecks?

    public init(role: ModelRole, basis: Basis, qualification: QualificationCounts? = nil, checks: TrustChecks? = nil) {
        self.role = role
        self.basis = basis
        self.qualification = qualification
        self.checks = checks
    }

    /// Before any measurement: advisory, today's rule.
    public static let unmeasured = ModelStanding(role: .advisory, basis: .unmeasured)

    /// The standing for `setting` given what is known: a forced role wins; `auto` takes the measured role, and is
    /// `advisory` while measuring or unmeasured, or once `demotedBy` checks ended its trust.
    public static func resolving(
        _ setting: ModelRoleSetting, qualification: QualificationCounts?, isMeasuring: Bool = false,
        demotedBy checks: TrustChecks? = nil
    ) -> ModelStanding {
        if let forced = setting.forcedRole { return ModelStanding(role: forced, basis: .forced, qualification: qualification) }
        if let checks { return ModelStanding(role: .advisory, basis: .demoted, qualification: qualification, checks: checks) }
        if let qualification, let role = qualification.role {
            return ModelStanding(role: role, basis: .measured, qualification: qualification)
        }
        return ModelStanding(role: .advisory, basis: isMeasuring ? .measuring : .unmeasured, qualification: qualification)
    }
}
