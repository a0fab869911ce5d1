//! The rule catalogue: every change the crate reports carries one of these
//! stable ids, and the kind is fixed per id so that consumers can override or
//! ignore a rule by name.

use crate::ChangeKind;

/// One rule: its stable kebab-case id, its kind, and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub kind: ChangeKind,
    pub description: &'static str,
}

macro_rules! rules {
    ($($name:ident = $id:literal, $kind:ident, $description:literal;)*) => {
        $(pub(crate) const $name: Rule = Rule { id: $id, kind: ChangeKind::$kind, description: $description };)*
        /// Every rule, in catalogue order.
        pub static RULES: &[Rule] = &[$($name),*];
    };
}

rules! {
    // endpoints
    ENDPOINT_REMOVED = "endpoint-removed", Breaking, "an operation (method and path) was removed";
    ENDPOINT_ADDED = "endpoint-added", Additive, "an operation was added";
    ENDPOINT_DEPRECATED = "endpoint-deprecated", Cosmetic, "an operation was marked deprecated";
    ENDPOINT_UNDEPRECATED = "endpoint-undeprecated", Cosmetic, "an operation is no longer deprecated";
    OPERATION_ID_CHANGED = "operation-id-changed", Cosmetic, "the operationId changed (generated SDK method names follow it)";
    OPERATION_SUMMARY_CHANGED = "operation-summary-changed", Cosmetic, "an operation's summary changed";
    OPERATION_DESCRIPTION_CHANGED = "operation-description-changed", Cosmetic, "an operation's description changed";
    PATH_PARAMETER_RENAMED = "path-parameter-renamed", Cosmetic, "a path template variable was renamed in place";
    // parameters
    REQUEST_REQUIRED_PARAMETER_ADDED = "request-required-parameter-added", Breaking, "a new required parameter: existing calls lack it";
    REQUEST_OPTIONAL_PARAMETER_ADDED = "request-optional-parameter-added", Additive, "a new optional parameter";
    REQUEST_PARAMETER_REMOVED = "request-parameter-removed", Breaking, "a parameter clients send is no longer accepted";
    REQUEST_PARAMETER_BECAME_REQUIRED = "request-parameter-became-required", Breaking, "an optional parameter became required";
    REQUEST_PARAMETER_BECAME_OPTIONAL = "request-parameter-became-optional", Additive, "a required parameter became optional";
    REQUEST_PARAMETER_LOCATION_CHANGED = "request-parameter-location-changed", Breaking, "a parameter moved (for example from query to header)";
    REQUEST_PARAMETER_STYLE_CHANGED = "request-parameter-style-changed", Breaking, "a parameter's serialisation (style or explode) changed";
    REQUEST_PARAMETER_DEPRECATED = "request-parameter-deprecated", Cosmetic, "a parameter's deprecation flag changed";
    // request bodies
    REQUEST_REQUIRED_BODY_ADDED = "request-required-body-added", Breaking, "a required request body was added";
    REQUEST_OPTIONAL_BODY_ADDED = "request-optional-body-added", Additive, "an optional request body was added";
    REQUEST_BODY_REMOVED = "request-body-removed", Breaking, "the request body clients send is no longer accepted";
    REQUEST_BODY_BECAME_REQUIRED = "request-body-became-required", Breaking, "the request body became required";
    REQUEST_BODY_BECAME_OPTIONAL = "request-body-became-optional", Additive, "the request body became optional";
    REQUEST_MEDIA_TYPE_REMOVED = "request-media-type-removed", Breaking, "a request media type is no longer accepted";
    REQUEST_MEDIA_TYPE_ADDED = "request-media-type-added", Additive, "a request media type is newly accepted";
    // responses
    RESPONSE_STATUS_REMOVED = "response-status-removed", Breaking, "a response status code was removed";
    RESPONSE_STATUS_ADDED = "response-status-added", Additive, "a response status code was added";
    RESPONSE_MEDIA_TYPE_REMOVED = "response-media-type-removed", Breaking, "a response media type was removed";
    RESPONSE_MEDIA_TYPE_ADDED = "response-media-type-added", Additive, "a response media type was added";
    RESPONSE_HEADER_REMOVED = "response-header-removed", Breaking, "a response header was removed";
    RESPONSE_HEADER_ADDED = "response-header-added", Additive, "a response header was added";
    // schemas, request direction (what clients send)
    REQUEST_TYPE_CHANGED = "request-type-changed", Breaking, "the type of a request value changed";
    REQUEST_TYPE_WIDENED = "request-type-widened", Additive, "a request value accepts more types (integer to number, or a longer type list)";
    REQUEST_FORMAT_CHANGED = "request-format-changed", Breaking, "the format of a request value changed";
    REQUEST_PROPERTY_REMOVED = "request-property-removed", Breaking, "a request property was removed (oasdiff: WARN, which counts as breaking)";
    REQUEST_REQUIRED_PROPERTY_ADDED = "request-required-property-added", Breaking, "a new required request property";
    REQUEST_OPTIONAL_PROPERTY_ADDED = "request-optional-property-added", Additive, "a new optional request property";
    REQUEST_PROPERTY_BECAME_REQUIRED = "request-property-became-required", Breaking, "a request property became required";
    REQUEST_PROPERTY_BECAME_OPTIONAL = "request-property-became-optional", Additive, "a request property became optional";
    REQUEST_BECAME_NOT_NULLABLE = "request-became-not-nullable", Breaking, "a request value no longer accepts null";
    REQUEST_BECAME_NULLABLE = "request-became-nullable", Additive, "a request value now accepts null";
    REQUEST_ENUM_VALUE_REMOVED = "request-enum-value-removed", Breaking, "a value clients may send is no longer allowed";
    REQUEST_ENUM_VALUE_ADDED = "request-enum-value-added", Additive, "a new value clients may send";
    REQUEST_CONSTRAINT_TIGHTENED = "request-constraint-tightened", Breaking, "a bound, pattern, format or enum now refuses values that were valid";
    REQUEST_CONSTRAINT_LOOSENED = "request-constraint-loosened", Additive, "a bound, pattern, format or enum now accepts more values";
    REQUEST_ADDITIONAL_PROPERTIES_FORBIDDEN = "request-additional-properties-forbidden", Breaking, "a request object no longer accepts unknown properties";
    REQUEST_ADDITIONAL_PROPERTIES_ALLOWED = "request-additional-properties-allowed", Additive, "a request object now accepts unknown properties";
    REQUEST_VARIANT_REMOVED = "request-variant-removed", Breaking, "a oneOf/anyOf alternative clients may send was removed";
    REQUEST_VARIANT_ADDED = "request-variant-added", Additive, "a new oneOf/anyOf alternative clients may send";
    // schemas, response direction (what clients receive)
    RESPONSE_TYPE_CHANGED = "response-type-changed", Breaking, "the type of a response value changed";
    RESPONSE_TYPE_NARROWED = "response-type-narrowed", Additive, "a response value has fewer possible types";
    RESPONSE_FORMAT_CHANGED = "response-format-changed", Breaking, "the format of a response value changed";
    RESPONSE_PROPERTY_REMOVED = "response-property-removed", Breaking, "a property clients read was removed";
    RESPONSE_PROPERTY_ADDED = "response-property-added", Additive, "a new response property";
    RESPONSE_PROPERTY_BECAME_OPTIONAL = "response-property-became-optional", Breaking, "a response property is no longer always present";
    RESPONSE_PROPERTY_BECAME_REQUIRED = "response-property-became-required", Additive, "a response property is now always present";
    RESPONSE_BECAME_NULLABLE = "response-became-nullable", Breaking, "a response value may now be null";
    RESPONSE_BECAME_NOT_NULLABLE = "response-became-not-nullable", Additive, "a response value is never null any more";
    RESPONSE_ENUM_VALUE_ADDED = "response-enum-value-added", Breaking, "a new value clients may receive (breaks exhaustive matches)";
    RESPONSE_ENUM_VALUE_REMOVED = "response-enum-value-removed", Additive, "a value clients may receive is no longer returned";
    RESPONSE_CONSTRAINT_LOOSENED = "response-constraint-loosened", Breaking, "a bound, pattern, format or enum of a response value was relaxed";
    RESPONSE_CONSTRAINT_TIGHTENED = "response-constraint-tightened", Cosmetic, "a bound, pattern, format or enum of a response value was tightened";
    RESPONSE_ADDITIONAL_PROPERTIES_CHANGED = "response-additional-properties-changed", Cosmetic, "additionalProperties of a response object changed";
    RESPONSE_VARIANT_ADDED = "response-variant-added", Breaking, "a new oneOf/anyOf alternative clients may receive";
    RESPONSE_VARIANT_REMOVED = "response-variant-removed", Additive, "a oneOf/anyOf alternative is no longer returned";
    // webhooks and callbacks: the API sends, the consumer receives
    WEBHOOK_REMOVED = "webhook-removed", Breaking, "a webhook was removed: consumers that rely on being called are no longer called";
    WEBHOOK_ADDED = "webhook-added", Additive, "a webhook was added";
    CALLBACK_REMOVED = "callback-removed", Breaking, "a callback operation was removed: consumers that rely on being called are no longer called";
    CALLBACK_ADDED = "callback-added", Additive, "a callback operation was added";
    EVENT_DEPRECATED = "event-deprecated", Cosmetic, "a webhook or callback operation's deprecation flag changed";
    EVENT_PARAMETER_REMOVED = "event-parameter-removed", Breaking, "a parameter the API sent to consumers is no longer sent";
    EVENT_PARAMETER_ADDED = "event-parameter-added", Additive, "the API sends consumers a new parameter (required or not: consumers may ignore it)";
    EVENT_PARAMETER_BECAME_OPTIONAL = "event-parameter-became-optional", Breaking, "a parameter the API always sent may now be missing";
    EVENT_PARAMETER_BECAME_REQUIRED = "event-parameter-became-required", Additive, "a parameter the API sometimes sent is now always sent";
    EVENT_BODY_REMOVED = "event-body-removed", Breaking, "the API no longer sends the body consumers read";
    EVENT_BODY_ADDED = "event-body-added", Additive, "the API now sends a body";
    EVENT_BODY_BECAME_OPTIONAL = "event-body-became-optional", Breaking, "the body the API always sent may now be missing";
    EVENT_BODY_BECAME_REQUIRED = "event-body-became-required", Additive, "the body the API sometimes sent is now always sent";
    EVENT_MEDIA_TYPE_REMOVED = "event-media-type-removed", Breaking, "the API no longer sends a body media type consumers parse";
    EVENT_MEDIA_TYPE_ADDED = "event-media-type-added", Breaking, "the API may send a body media type consumers do not parse (there is no negotiation)";
    EVENT_REPLY_STATUS_REMOVED = "event-reply-status-removed", Breaking, "an answer status consumers return is no longer documented as accepted";
    EVENT_REPLY_STATUS_ADDED = "event-reply-status-added", Additive, "the API accepts a new answer status from consumers";
    EVENT_REPLY_MEDIA_TYPE_REMOVED = "event-reply-media-type-removed", Breaking, "an answer media type consumers send is no longer accepted";
    EVENT_REPLY_MEDIA_TYPE_ADDED = "event-reply-media-type-added", Additive, "the API accepts a new answer media type from consumers";
    // links
    LINK_REMOVED = "link-removed", Cosmetic, "a response link was removed (links describe, they do not change the wire)";
    LINK_ADDED = "link-added", Cosmetic, "a response link was added";
    LINK_CHANGED = "link-changed", Cosmetic, "a response link's target operation or the values it passes changed";
    // defaults
    REQUEST_DEFAULT_CHANGED = "request-default-changed", Breaking, "the value assumed for an omitted optional request value changed, or is no longer documented";
    DEFAULT_CHANGED = "default-changed", Cosmetic, "a default was added, or changed where it never applies (a required request value, or a response value)";
    // documentation
    SCHEMA_DEPRECATED = "schema-deprecated", Cosmetic, "a schema or property's deprecation flag changed";
    DESCRIPTION_CHANGED = "description-changed", Cosmetic, "a description of a parameter, body, response, header or schema changed";
    EXAMPLE_CHANGED = "example-changed", Cosmetic, "an example changed";
    // security
    SECURITY_ADDED = "security-added", Breaking, "an operation that allowed anonymous calls now requires credentials";
    SECURITY_REMOVED = "security-removed", Additive, "an operation no longer requires credentials";
    SECURITY_ALTERNATIVE_ADDED = "security-alternative-added", Additive, "a new way to authenticate an operation";
    SECURITY_ALTERNATIVE_REMOVED = "security-alternative-removed", Breaking, "a way to authenticate an operation was removed";
    SECURITY_SCOPE_ADDED = "security-scope-added", Breaking, "an operation requires an additional scope";
    SECURITY_SCOPE_REMOVED = "security-scope-removed", Additive, "an operation requires fewer scopes";
    SECURITY_SCHEME_REMOVED = "security-scheme-removed", Breaking, "a security scheme was removed";
    SECURITY_SCHEME_ADDED = "security-scheme-added", Additive, "a security scheme was added";
    SECURITY_SCHEME_CHANGED = "security-scheme-changed", Breaking, "a security scheme's type, location, name or URLs changed";
    // servers
    SERVER_ADDED = "server-added", Cosmetic, "a server URL was added";
    SERVER_REMOVED = "server-removed", Cosmetic, "a server URL was removed while others remain";
    SERVERS_ALL_REMOVED = "servers-all-removed", Breaking, "none of the old server URLs remains";
    // graphql
    GRAPHQL_TYPE_REMOVED = "graphql-type-removed", Breaking, "a type was removed";
    GRAPHQL_TYPE_ADDED = "graphql-type-added", Additive, "a type was added";
    GRAPHQL_TYPE_KIND_CHANGED = "graphql-type-kind-changed", Breaking, "a type changed kind (for example object to interface)";
    GRAPHQL_FIELD_REMOVED = "graphql-field-removed", Breaking, "a field was removed";
    GRAPHQL_FIELD_ADDED = "graphql-field-added", Additive, "a field was added";
    GRAPHQL_FIELD_TYPE_CHANGED = "graphql-field-type-changed", Breaking, "an output field's type changed";
    GRAPHQL_FIELD_BECAME_NULLABLE = "graphql-field-became-nullable", Breaking, "an output field may now be null";
    GRAPHQL_FIELD_BECAME_NON_NULL = "graphql-field-became-non-null", Additive, "an output field is never null any more";
    GRAPHQL_REQUIRED_ARGUMENT_ADDED = "graphql-required-argument-added", Breaking, "a non-null argument without default was added";
    GRAPHQL_OPTIONAL_ARGUMENT_ADDED = "graphql-optional-argument-added", Additive, "an optional argument was added";
    GRAPHQL_ARGUMENT_REMOVED = "graphql-argument-removed", Breaking, "an argument was removed";
    GRAPHQL_REQUIRED_INPUT_FIELD_ADDED = "graphql-required-input-field-added", Breaking, "a non-null input field without default was added";
    GRAPHQL_OPTIONAL_INPUT_FIELD_ADDED = "graphql-optional-input-field-added", Additive, "an optional input field was added";
    GRAPHQL_INPUT_FIELD_REMOVED = "graphql-input-field-removed", Breaking, "an input field was removed";
    GRAPHQL_INPUT_TYPE_CHANGED = "graphql-input-type-changed", Breaking, "the type of an argument or input field changed";
    GRAPHQL_INPUT_BECAME_NON_NULL = "graphql-input-became-non-null", Breaking, "an argument or input field no longer accepts null";
    GRAPHQL_INPUT_BECAME_NULLABLE = "graphql-input-became-nullable", Additive, "an argument or input field now accepts null";
    GRAPHQL_ENUM_VALUE_REMOVED = "graphql-enum-value-removed", Breaking, "an enum value was removed";
    GRAPHQL_ENUM_VALUE_ADDED = "graphql-enum-value-added", Additive, "an enum value was added (clients that switch exhaustively over an output enum should add a case)";
    GRAPHQL_UNION_MEMBER_REMOVED = "graphql-union-member-removed", Breaking, "a union member was removed";
    GRAPHQL_UNION_MEMBER_ADDED = "graphql-union-member-added", Additive, "a union member was added";
    GRAPHQL_INTERFACE_REMOVED = "graphql-interface-removed", Breaking, "a type no longer implements an interface";
    GRAPHQL_INTERFACE_ADDED = "graphql-interface-added", Additive, "a type implements a new interface";
    GRAPHQL_DEPRECATION_CHANGED = "graphql-deprecation-changed", Cosmetic, "a field, argument or enum value was deprecated or undeprecated";
    GRAPHQL_DESCRIPTION_CHANGED = "graphql-description-changed", Cosmetic, "a description changed";
}

/// The rule with this id.
#[must_use]
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.id == id)
}
