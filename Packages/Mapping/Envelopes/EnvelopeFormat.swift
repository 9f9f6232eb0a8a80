public import Transport

/// The shape a server wraps every answer in: a result code, a message, and the data.
///
/// Many APIs answer `{"code": 200, "message": "ok", "data": {...}}` whatever the endpoint,
/// and report failures with the same shape and another code. An envelope format says where
/// those three live and which codes mean success; a ``ResponseDecoder`` uses it to check
/// the code before decoding `data`, and to turn any other code into a ``BusinessError``.
///
/// ``StandardEnvelope`` covers the usual variations (other key names, other success codes,
/// handlers for chosen codes). Conform your own type when a server needs more, for
/// example a success rule that is not a set of codes:
///
/// ```swift
/// struct LegacyEnvelope: EnvelopeFormat {
///     var codePath: JSONKeyPath { "status" }
///     var messagePath: JSONKeyPath { "msg" }
///     var dataPath: JSONKeyPath { "result" }
///     func isSuccess(_ code: BusinessCode) -> Bool { (0..<100).contains(code.intValue ?? -1) }
/// }
/// ```
///
/// Every requirement has a default, the standard shape: `code`, `message`, `data`, success
/// code `200`, no routing.
public protocol EnvelopeFormat: Sendable {
    /// Where the result code is; `code` by default. A body without it is not an envelope.
    var codePath: JSONKeyPath { get }
    /// Where the human-readable message is; `message` by default. It may be absent.
    var messagePath: JSONKeyPath { get }
    /// Where the payload is; `data` by default.
    var dataPath: JSONKeyPath { get }
    /// The codes that mean success; `[200]` by default.
    var successCodes: Set<BusinessCode> { get }

    /// Whether `code` means success; by default, whether ``successCodes`` contains it.
    ///
    /// - Parameter code: The code the server sent.
    /// - Returns: `true` to decode the data, `false` to throw a ``BusinessError``.
    func isSuccess(_ code: BusinessCode) -> Bool

    /// Called with every ``BusinessError`` just before it is thrown; does nothing by default.
    ///
    /// Use it for codes that need handling wherever they happen, such as a "token expired"
    /// code that should send the person back to signing in. It runs synchronously on the
    /// task that decodes the response; start a task for asynchronous work.
    ///
    /// - Parameter error: The error about to be thrown.
    func route(_ error: BusinessError)

    /// The error a failure envelope is thrown as: the ``BusinessError`` itself by default.
    ///
    /// Return the app's own error type to have every decode of this envelope throw it
    /// (Bowling's `DefaultVerify`); an `Errorable` error keeps the code, so `Warnable`
    /// still finds the right message:
    ///
    /// ```swift
    /// func error(for failure: BusinessError) -> any Error {
    ///     failure.code == 401 ? ShopError.signedOut : ShopError.server(failure.message)
    /// }
    /// ```
    ///
    /// - Parameter failure: The envelope's failure, after ``route(_:)``.
    /// - Returns: The error to throw.
    func error(for failure: BusinessError) -> any Error
}

extension EnvelopeFormat {
    /// `code`.
    public var codePath: JSONKeyPath { "code" }
    /// `message`.
    public var messagePath: JSONKeyPath { "message" }
    /// `data`.
    public var dataPath: JSONKeyPath { "data" }
    /// `[200]`.
    public var successCodes: Set<BusinessCode> { [200] }

    /// Whether ``successCodes`` contains `code`.
    ///
    /// - Parameter code: The code the server sent.
    /// - Returns: Whether it is a success code.
    public func isSuccess(_ code: BusinessCode) -> Bool { successCodes.contains(code) }

    /// Does nothing.
    ///
    /// - Parameter error: The error about to be thrown.
    public func route(_ error: BusinessError) {}
    /// The business error itself.
    public func error(for failure: BusinessError) -> any Error { failure }
}

/// The envelope of most servers: key names, success codes and handlers are settings.
///
/// ```swift
/// let envelope = StandardEnvelope(
///     codePath: "status", messagePath: "msg", dataPath: "result",
///     successCodes: [0, "OK"],
///     routes: [401: { error in session.signOut(reason: error.message) }]
/// )
/// let decoder = ResponseDecoder(envelope: envelope)
/// ```
public struct StandardEnvelope: EnvelopeFormat {
    /// Where the result code is; `code` by default.
    public var codePath: JSONKeyPath
    /// Where the message is; `message` by default.
    public var messagePath: JSONKeyPath
    /// Where the payload is; `data` by default.
    public var dataPath: JSONKeyPath
    /// The codes that mean success; `[200]` by default.
    public var successCodes: Set<BusinessCode>
    /// Handlers for chosen codes, called with the error just before it is thrown; none by default.
    public var routes: [BusinessCode: @Sendable (BusinessError) -> Void]

    /// Creates an envelope format.
    ///
    /// - Parameters:
    ///   - codePath: Where the result code is; `code` by default.
    ///   - messagePath: Where the message is; `message` by default.
    ///   - dataPath: Where the payload is; `data` by default.
    ///   - successCodes: The codes that mean success; `[200]` by default.
    ///   - routes: Handlers for chosen failure codes; none by default. A handler runs
    ///     synchronously on the decoding task, before the error is thrown to the caller.
    public init(
        codePath: JSONKeyPath = StandardEnvelope.defaultCodePath,
        messagePath: JSONKeyPath = StandardEnvelope.defaultMessagePath,
        dataPath: JSONKeyPath = StandardEnvelope.defaultDataPath,
        successCodes: Set<BusinessCode> = StandardEnvelope.defaultSuccessCodes,
        routes: [BusinessCode: @Sendable (BusinessError) -> Void] = [:]
    ) {
        self.codePath = codePath
        self.messagePath = messagePath
        self.dataPath = dataPath
        self.successCodes = successCodes
        self.routes = routes
    }

    /// Whether ``successCodes`` contains `code`.
    ///
    /// - Parameter code: The code the server sent.
    /// - Returns: Whether it is a success code.
    public func isSuccess(_ code: BusinessCode) -> Bool {
        // One success code is the usual case: compare it rather than hash the code.
        if successCodes.count == 1, let only = successCodes.first { return only == code }
        return successCodes.contains(code)
    }

    // The defaults, made once: a `ResponseDecoder()` per request builds a standard envelope,
    // and literals would allocate its paths and set every time.
    @usableFromInline static let defaultCodePath: JSONKeyPath = "code"
    @usableFromInline static let defaultMessagePath: JSONKeyPath = "message"
    @usableFromInline static let defaultDataPath: JSONKeyPath = "data"
    @usableFromInline static let defaultSuccessCodes: Set<BusinessCode> = [200]

    /// Calls the handler registered for the error's code, if there is one.
    ///
    /// - Parameter error: The error about to be thrown.
    public func route(_ error: BusinessError) {
        routes[error.code]?(error)
    }
}

extension EnvelopeFormat where Self == StandardEnvelope {
    /// `{"code": …, "message": …, "data": …}` with success code `200`.
    public static var standard: StandardEnvelope { StandardEnvelope() }

    /// A standard envelope with other settings; see ``StandardEnvelope/init(codePath:messagePath:dataPath:successCodes:routes:)``.
    ///
    /// - Parameters:
    ///   - codePath: Where the result code is; `code` by default.
    ///   - messagePath: Where the message is; `message` by default.
    ///   - dataPath: Where the payload is; `data` by default.
    ///   - successCodes: The codes that mean success; `[200]` by default.
    ///   - routes: Handlers for chosen failure codes; none by default.
    /// - Returns: The envelope format.
    public static func standard(
        codePath: JSONKeyPath = StandardEnvelope.defaultCodePath,
        messagePath: JSONKeyPath = StandardEnvelope.defaultMessagePath,
        dataPath: JSONKeyPath = StandardEnvelope.defaultDataPath,
        successCodes: Set<BusinessCode> = StandardEnvelope.defaultSuccessCodes,
        routes: [BusinessCode: @Sendable (BusinessError) -> Void] = [:]
    ) -> StandardEnvelope {
        StandardEnvelope(
            codePath: codePath,
            messagePath: messagePath,
            dataPath: dataPath,
            successCodes: successCodes,
            routes: routes
        )
    }
}
