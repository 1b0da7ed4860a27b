// The messages of k8s.io/apimachinery's name and label validation (pkg/util/validation), word for
// word, as the tests of the validation and of the API server's answers expect them.
#pragma once

#include <string>

namespace fakekube::testing {

// The message of each validator (the function of pkg/util/validation that words it).
struct ValidationMessages {
  std::string subdomain;      // IsDNS1123Subdomain
  std::string label;          // IsDNS1123Label
  std::string dns1035;        // IsDNS1035Label
  std::string namePart;       // IsQualifiedName, the name part
  std::string qualifiedName;  // IsQualifiedName
  std::string labelValue;     // IsValidLabelValue
};

inline const ValidationMessages kValidationMessages{
    .subdomain =
        R"(a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))",
    .label =
        R"(a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'))",
    .dns1035 =
        R"(a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'))",
    .namePart =
        R"(name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'))",
    .qualifiedName =
        R"(a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'))",
    .labelValue =
        R"(a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'))",
};

}  // namespace fakekube::testing
