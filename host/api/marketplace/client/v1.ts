// Version 1 operations of MarketplaceClient (/marketplace-api/v1, deprecated); names from the
// operation ids.
import type { Account, AccountCreateResult, AccountCreateV1, AccountList, AccountStatus, Agreements, ProductsUpdateV1, UsageReport } from '../types.js';
import type { MarketplaceClientCore } from './core.js';

const V1 = '/marketplace-api/v1';

export const v1Operations = {
  /** get_account_list @deprecated use getAccountListV2 */
  getAccountList(this: MarketplaceClientCore): Promise<AccountList> {
    return this.call('get_account_list', 'GET', `${V1}/account`);
  },
  /** create_account: a LOCATION account (TEAM_MEMBERS, AGENTS, MSP_INTEGRATIONS). @deprecated use createAccountV2 */
  createAccount(this: MarketplaceClientCore, body: AccountCreateV1): Promise<AccountCreateResult> {
    return this.call('create_account', 'POST', `${V1}/account`, { body });
  },
  /** get_account @deprecated use getAccountV2 */
  getAccount(this: MarketplaceClientCore, email: string): Promise<Account> {
    return this.call('get_account', 'GET', this.accountPath('v1', email));
  },
  /** update_account_status @deprecated use updateAccountStatusV2 */
  updateAccountStatus(this: MarketplaceClientCore, email: string, accountStatus: AccountStatus): Promise<void> {
    return this.call('update_account_status', 'PUT', this.accountPath('v1', email, '/status'), { body: { account_status: accountStatus } });
  },
  /** update_account_products: keys TEAM_MEMBERS, AGENTS, MSP_INTEGRATIONS, each fitting the account's model. @deprecated */
  updateAccountProducts(this: MarketplaceClientCore, email: string, body: ProductsUpdateV1): Promise<void> {
    return this.call('update_account_products', 'PUT', this.accountPath('v1', email, '/products'), { body });
  },
  /** get_privacy_policy @deprecated use getPrivacyPolicyV2 */
  getPrivacyPolicy(this: MarketplaceClientCore): Promise<Agreements> {
    return this.call('get_privacy_policy', 'GET', `${V1}/agreements`);
  },
  /** get_billing_report @deprecated use getBillingReportV2 */
  getBillingReport(this: MarketplaceClientCore, year: number, month: number): Promise<UsageReport> {
    return this.call('get_billing_report', 'GET', `${V1}/billing-report/${encodeURIComponent(year)}/${encodeURIComponent(month)}`);
  },
};
